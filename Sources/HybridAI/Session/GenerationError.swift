/// Errors a ``GenerativeModelSession`` throws, named after Foundation Models' where it has one
/// (`exceededContextWindowSize`, `rateLimited`, `guardrailViolation`, `refusal`,
/// `concurrentRequests`; its `assetsUnavailable` is ``modelUnavailable(_:detail:)``, its
/// `decodingFailure` ``invalidStructuredOutput(rawContent:reason:)``).
///
/// A session throws these for every model: a backend's own error that has one of these meanings
/// (``GenerationErrorConvertible``, e.g. Gemini's 429 or safety block, an OpenAI-compatible
/// server's content filter) reaches the caller as the ``GenerationError``; other backend errors
/// (an unknown model, an unreachable service) keep their own type.
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
  /// The answer reached the token limit (`maximumTokens`, when one was set) before the structured
  /// answer was complete; `rawContent` is the text so far. Allow more tokens
  /// (``GenerationOptions/maximumResponseTokens``) or ask for less.
  case exceededTokenLimit(maximumTokens: Int?, rawContent: String)
  /// The model asked for a tool the session does not have.
  case unknownTool(name: String, arguments: String)
  /// The model's arguments for a tool do not decode as the tool's `Arguments`.
  case invalidToolArguments(toolName: String, arguments: String, reason: String)
  /// The model kept asking for tools beyond ``ToolExecutionPolicy/maximumRounds``.
  case toolCallLimitExceeded(rounds: Int)
  /// The service refused for now: rate limit or quota (HTTP 429, after the retries allowed).
  /// `retryAfter` is when it said to try again (Gemini's `RetryInfo`, `Retry-After`), if it did.
  case rateLimited(retryAfter: Duration?, detail: String)
  /// A safety system blocked the prompt or stopped the answer; `detail` names the reason and
  /// the ratings the service gave.
  case guardrailViolation(String)
  /// The model declined to answer; `explanation` is what it said.
  case refusal(explanation: String)

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
    case .exceededTokenLimit(let limit, _):
      "reached the limit of \(limit.map { "\($0) tokens" } ?? "its tokens") before the structured answer was complete"
    case .unknownTool(let name, _):
      "the model called a tool the session does not have: \(name)"
    case .invalidToolArguments(let tool, let arguments, let reason):
      "the model's arguments for \(tool) are not valid (\(reason)): \(arguments)"
    case .toolCallLimitExceeded(let rounds):
      "the model was still calling tools after \(rounds) rounds"
    case .rateLimited(let retryAfter, let detail):
      "rate limited" + (retryAfter.map { " (retry after \($0))" } ?? "") + ": \(detail)"
    case .guardrailViolation(let detail):
      "blocked by a safety guardrail: \(detail)"
    case .refusal(let explanation):
      "the model refused: \(explanation)"
    }
  }
}

/// A backend's error that can mean one of the ``GenerationError``s (a rate limit, a safety block,
/// a context overflow reported by a server): a ``GenerativeModelSession`` throws that instead.
public protocol GenerationErrorConvertible: Error {
  /// The ``GenerationError`` this failure means, or `nil` when it has no such meaning.
  var generationError: GenerationError? { get }
}

extension GenerationError {
  /// `error` as the ``GenerationError`` it means, when it is one or converts to one; else `error`.
  public static func translating(_ error: any Error) -> any Error {
    (error as? any GenerationErrorConvertible)?.generationError ?? error
  }

  /// The prompt and context sizes in a server's "input token count (N) exceeds the maximum number
  /// of tokens allowed (M)" message (Gemini's wording, also `hybrid serve`'s on both APIs).
  public static func contextOverflow(inMessage message: String) -> GenerationError? {
    let pattern = /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/
    guard let match = message.firstMatch(of: pattern.ignoresCase()), let used = Int(match.1), let limit = Int(match.2)
    else { return nil }
    return .exceededContextWindowSize(promptTokens: used, contextSize: limit)
  }
}
