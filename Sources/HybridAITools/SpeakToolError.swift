/// Why ``SpeakTool`` made no speech.
public enum SpeakToolError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text is empty or only whitespace.
  case emptyText
  /// The text is longer than the tool's limit (in UTF-8 bytes).
  case textTooLong(byteCount: Int, limit: Int)
  /// No `espeak-ng` executable was found (install the Debian package `espeak-ng`).
  case synthesizerNotFound(searched: String)
  /// `espeak-ng` could not be started.
  case launchFailed(reason: String)
  /// `espeak-ng` exited unsuccessfully.
  case synthesisFailed(status: Int32, standardError: String)
  /// `espeak-ng` ran past the time limit and was killed.
  case timedOut(limit: Duration)
  /// The call was cancelled; the child process was killed.
  case cancelled
  /// `espeak-ng` wrote something that is not valid WAV audio.
  case invalidAudio(WAVError)
  /// The tool's scratch files could not be written or read.
  case fileSystem(reason: String)

  public var description: String {
    switch self {
    case .emptyText: "there is no text to speak"
    case .textTooLong(let count, let limit): "the text is \(count) bytes; at most \(limit) can be spoken at once"
    case .synthesizerNotFound(let searched): "espeak-ng was not found (searched \(searched)); install the espeak-ng package"
    case .launchFailed(let reason): "espeak-ng could not be started: \(reason)"
    case .synthesisFailed(let status, let standardError):
      "espeak-ng failed with status \(status)" + (standardError.isEmpty ? "" : ": \(standardError)")
    case .timedOut(let limit): "espeak-ng took longer than \(limit) and was stopped"
    case .cancelled: "speech synthesis was cancelled"
    case .invalidAudio(let error): "espeak-ng produced invalid audio: \(error)"
    case .fileSystem(let reason): "speech synthesis failed: \(reason)"
    }
  }
}
