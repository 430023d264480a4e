/// Errors a ``GenerativeModelSession`` throws.
public enum GenerationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The session is already answering; wait for it (see ``GenerativeModelSession/isResponding``).
  case concurrentRequests
  /// The model cannot be used: see the reason.
  case modelUnavailable(ModelAvailability.UnavailableReason, detail: String)
  /// The prompt (instructions, history and new prompt) does not fit the model's context window.
  case exceededContextWindowSize(promptTokens: Int, contextSize: Int)
  /// The model cannot serve this request.
  case unsupportedRequest(UnsupportedReason)
  /// The model cannot do what was asked of it at all (count tokens, report its context size, …), in words.
  case unsupportedCapability(String)
  /// The model's answer stream ended without completing.
  case incompleteResponse(modelVersion: String)
  /// A structured answer did not decode or did not follow the schema; `rawContent` is the model's text.
  case invalidStructuredOutput(rawContent: String, reason: String)
  /// The model asked for a tool the session does not have.
  case unknownTool(name: String, arguments: String)
  /// The model's arguments for a tool do not decode as the tool's `Arguments`.
  case invalidToolArguments(toolName: String, arguments: String, reason: String)
  /// The model kept asking for tools beyond ``ToolExecutionPolicy/maximumRounds``.
  case toolCallLimitExceeded(rounds: Int)

  /// The error for a request the model does not support: ``exceededContextWindowSize(promptTokens:contextSize:)``
  /// when the prompt is too long, ``unsupportedRequest(_:)`` otherwise.
  public static func unsupported(_ reason: UnsupportedReason) -> GenerationError {
    if case .exceedsContextWindow(let promptTokens, let contextSize) = reason {
      return .exceededContextWindowSize(promptTokens: promptTokens, contextSize: contextSize)
    }
    return .unsupportedRequest(reason)
  }

  public var description: String {
    switch self {
    case .concurrentRequests:
      "the session is already responding; wait for the current request to finish"
    case .modelUnavailable(let reason, let detail):
      "the model is unavailable: \(reason)" + (detail.isEmpty ? "" : " (\(detail))")
    case .exceededContextWindowSize(let prompt, let context):
      "the prompt needs \(prompt) tokens but the model's context window holds \(context)"
    case .unsupportedRequest(let reason):
      "the model cannot serve this request: \(reason)"
    case .unsupportedCapability(let what):
      "unsupported: \(what)"
    case .incompleteResponse(let model):
      "\(model) ended its answer without completing it"
    case .invalidStructuredOutput(let raw, let reason):
      "the structured answer is not valid (\(reason)): \(raw.count > 300 ? String(raw.prefix(300)) + "…" : raw)"
    case .unknownTool(let name, _):
      "the model called a tool the session does not have: \(name)"
    case .invalidToolArguments(let tool, let arguments, let reason):
      "the model's arguments for \(tool) are not valid (\(reason)): \(arguments)"
    case .toolCallLimitExceeded(let rounds):
      "the model was still calling tools after \(rounds) rounds"
    }
  }
}
