import HybridAI

/// Why a Gemini request cannot be turned into a HybridAI transcript and options (what a
/// Gemini-compatible server backed by an on-device model needs).
public enum GeminiConversionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The request holds an input the on-device model cannot take (`inlineData (image/png)`,
  /// `fileData`, `executableCode`, a built-in tool such as `googleSearch`, …).
  case unsupportedInput(String)
  /// A content has a role other than `user` and `model`.
  case unsupportedRole(String)
  /// A generation option is out of range.
  case invalidOption(String)
  /// A schema (`parameters`, `responseSchema`, …) is not valid or uses what cannot be converted.
  case invalidSchema(String)

  /// The reason to report through ``HybridAI/RequestSupport``.
  public var unsupportedReason: UnsupportedReason {
    switch self {
    case .unsupportedInput(let kind): .unsupportedInput(kind)
    case .unsupportedRole(let role): .other("content role \(role) is not supported")
    case .invalidOption(let detail): .other(detail)
    case .invalidSchema(let detail): .unsupportedSchema(detail)
    }
  }

  public var description: String {
    switch self {
    case .unsupportedInput(let kind): "input of kind \(kind) is not supported"
    case .unsupportedRole(let role): "content role \"\(role)\" is not supported (use user or model)"
    case .invalidOption(let detail): "invalid generation option: \(detail)"
    case .invalidSchema(let detail): "invalid schema: \(detail)"
    }
  }
}
