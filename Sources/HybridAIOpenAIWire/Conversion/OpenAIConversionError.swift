/// Why a Chat Completions request (or answer) has no HybridAI equivalent. A server answers it with
/// `400 invalid_request_error`, naming ``param``.
public enum OpenAIConversionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A message that breaks the conversation's rules (a `tool` message answering no call, …).
  case invalidMessage(String)
  /// Input HybridAI does not take here (image, audio or file parts).
  case unsupportedInput(String)
  /// An option out of range or not supported (`n` > 1, an undeclared function in `tool_choice`, …).
  case invalidOption(param: String, String)
  /// A tool call whose `arguments` are not a JSON object.
  case invalidToolArguments(String)

  /// The request field at fault, as OpenAI names it.
  public var param: String {
    switch self {
    case .invalidMessage, .unsupportedInput, .invalidToolArguments: "messages"
    case .invalidOption(let param, _): param
    }
  }

  public var description: String {
    switch self {
    case .invalidMessage(let detail): "Invalid messages: \(detail)"
    case .unsupportedInput(let kind): "Unsupported input: \(kind) content parts are not supported by this model."
    case .invalidOption(let param, let detail): "Invalid \(param): \(detail)"
    case .invalidToolArguments(let detail): "Invalid tool call arguments: \(detail)"
    }
  }
}
