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
  /// The model's answer stream ended without completing.
  case incompleteResponse(modelVersion: String)

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
    case .incompleteResponse(let model):
      "\(model) ended its answer without completing it"
    }
  }
}
