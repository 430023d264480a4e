/// Why bytes are not a usable WAV file (see ``WAVInfo/init(data:)``).
public enum WAVError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The data does not start with a `RIFF` … `WAVE` header.
  case notRIFFWAVE
  /// A required chunk (`fmt ` or `data`) is missing.
  case missingChunk(String)
  /// A chunk claims more bytes than the file has, or is too short for its contents.
  case truncatedChunk(String)
  /// The `fmt ` chunk describes a format this parser does not accept (e.g. zero channels).
  case invalidFormat(String)

  public var description: String {
    switch self {
    case .notRIFFWAVE: "not a RIFF/WAVE file"
    case .missingChunk(let id): "the WAV file has no '\(id)' chunk"
    case .truncatedChunk(let id): "the WAV file's '\(id)' chunk is truncated"
    case .invalidFormat(let reason): "invalid WAV format: \(reason)"
    }
  }
}
