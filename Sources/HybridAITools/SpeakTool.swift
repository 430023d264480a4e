import Foundation
import HybridAI
import HybridAIProcess
import Logging

/// Turns text into spoken audio: a WAV artifact synthesised by espeak-ng.
///
/// espeak-ng (the Debian package `espeak-ng`, installed by `scripts/bootstrap`) runs as a child
/// process. The text goes to it through a file (`-f`), never on its command line, so text such
/// as `--help` or `-w /etc/passwd` is spoken, not taken as options. The child is killed when it
/// runs past ``timeLimit`` or when the calling task is cancelled.
///
/// ```swift
/// let output = try await SpeakTool().call(arguments: .init(text: "Hello"), context: context)
/// output.artifacts[0]   // speech.wav, audio/wav
/// ```
///
/// Progress is reported through the context: 0.1 while synthesising, 0.9 while checking the
/// audio, 1.0 when done.
public struct SpeakTool: Tool {
  public let name = "speak"
  public let description = "Turns text into spoken audio (a WAV file). Use it when the user wants to hear something."

  /// What to say.
  @Generable
  public struct Arguments: Sendable {
    @Guide(description: "The text to speak aloud")
    public var text: String

    public init(text: String) {
      self.text = text
    }
  }

  /// The espeak-ng executable; `nil` searches `PATH`.
  public var executablePath: String?
  /// The espeak-ng voice (`-v`), e.g. `en` or `en-us`; `nil` uses espeak-ng's default.
  public var voice: String?
  /// Words per minute (`-s`); `nil` uses espeak-ng's default (175).
  public var wordsPerMinute: Int?
  /// The most UTF-8 bytes of text spoken in one call.
  public var maximumTextByteCount: Int
  /// How long espeak-ng may run before it is killed.
  public var timeLimit: Duration
  private let logger: Logger

  /// A speech tool.
  ///
  /// - Parameters:
  ///   - executablePath: the espeak-ng executable; by default the first `espeak-ng` on `PATH`.
  ///   - voice: the voice name (letters, digits, `-`, `+`, `_` only; must not start with `-`).
  ///   - wordsPerMinute: the speaking rate, 80–450.
  ///   - maximumTextByteCount: longer text fails with ``SpeakToolError/textTooLong(byteCount:limit:)``.
  ///   - timeLimit: espeak-ng's time limit.
  ///   - logger: where the tool logs (label `HybridAI.tools.speak` by default).
  public init(executablePath: String? = nil, voice: String? = nil, wordsPerMinute: Int? = nil,
              maximumTextByteCount: Int = 20_000, timeLimit: Duration = .seconds(60),
              logger: Logger = Logger(label: "HybridAI.tools.speak")) {
    if let voice {
      precondition(Self.isValidVoice(voice), "a voice name is letters, digits, '-', '+' and '_', not starting with '-'")
    }
    if let wordsPerMinute {
      precondition((80...450).contains(wordsPerMinute), "espeak-ng speaks 80–450 words per minute")
    }
    self.executablePath = executablePath
    self.voice = voice
    self.wordsPerMinute = wordsPerMinute
    self.maximumTextByteCount = maximumTextByteCount
    self.timeLimit = timeLimit
    self.logger = logger
  }

  public func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    let wav = try await synthesize(arguments.text, context: context)
    let info = try WAVInfo(data: wav)
    context.report(progress: 1, "done")
    let seconds = String(format: "%.1f", info.duration)
    return ToolOutput("Created speech.wav (\(seconds) s)",
                      artifacts: [Artifact(data: wav, mimeType: "audio/wav", name: "speech.wav")])
  }

  /// Synthesises `text` and returns the validated WAV bytes.
  ///
  /// - Throws: ``SpeakToolError``.
  public func synthesize(_ text: String, context: ToolContext? = nil) async throws(SpeakToolError) -> Data {
    guard !text.allSatisfy(\.isWhitespace) else { throw .emptyText }
    let byteCount = text.utf8.count
    guard byteCount <= maximumTextByteCount else { throw .textTooLong(byteCount: byteCount, limit: maximumTextByteCount) }
    let executable = try resolveExecutable()

    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("hybridai-speak-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let textURL = scratch.appendingPathComponent("input.txt")
    let wavURL = scratch.appendingPathComponent("speech.wav")
    do {
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true,
                                              attributes: [.posixPermissions: 0o700])
      try Data(text.utf8).write(to: textURL)
    } catch {
      throw .fileSystem(reason: "\(error)")
    }

    var arguments = ["-w", wavURL.path, "-f", textURL.path]
    if let voice { arguments += ["-v", voice] }
    if let wordsPerMinute { arguments += ["-s", String(wordsPerMinute)] }
    context?.report(progress: 0.1, "synthesising")
    logger.debug("synthesising speech", metadata: ["bytes": "\(byteCount)", "executable": "\(executable.path)"])
    let started = ContinuousClock.now
    let termination: ChildProcess.Outcome
    do {
      termination = try await ChildProcess(executable: executable, arguments: arguments, timeLimit: timeLimit).run()
    } catch {
      switch error {
      case .launchFailed(let reason): throw .launchFailed(reason: reason)
      case .timedOut:
        logger.warning("espeak-ng timed out and was killed", metadata: ["limit": "\(timeLimit)"])
        throw .timedOut(limit: timeLimit)
      case .cancelled: throw .cancelled
      case .outputTooLarge(let limit):
        throw .synthesisFailed(status: -1, standardError: "espeak-ng wrote more than \(limit) bytes of messages")
      }
    }
    guard termination.succeeded else {
      logger.error("espeak-ng failed", metadata: ["status": "\(termination.status)", "stderr": "\(termination.standardError)"])
      throw .synthesisFailed(status: termination.status, standardError: termination.standardError)
    }
    context?.report(progress: 0.9, "checking the audio")
    let wav: Data
    do {
      wav = try Data(contentsOf: wavURL)
    } catch {
      throw .fileSystem(reason: "espeak-ng wrote no audio: \(error)")
    }
    let info: WAVInfo
    do {
      info = try WAVInfo(data: wav)
    } catch {
      throw .invalidAudio(error)
    }
    logger.info("synthesised speech", metadata: [
      "seconds": "\(info.duration)", "bytes": "\(wav.count)", "elapsed": "\(ContinuousClock.now - started)",
    ])
    return wav
  }

  private func resolveExecutable() throws(SpeakToolError) -> URL {
    if let executablePath {
      guard FileManager.default.isExecutableFile(atPath: executablePath) else {
        throw .synthesizerNotFound(searched: executablePath)
      }
      return URL(fileURLWithPath: executablePath)
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where directory.hasPrefix("/") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("espeak-ng")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw .synthesizerNotFound(searched: path)
  }

  static func isValidVoice(_ voice: String) -> Bool {
    !voice.isEmpty && voice.utf8.count <= 64 && !voice.hasPrefix("-")
      && voice.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-+_".unicodeScalars.contains($0)) }
  }
}
