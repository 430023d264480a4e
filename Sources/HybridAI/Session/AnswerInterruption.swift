/// Why a model stopped an answer that it could otherwise have finished: what a server relaying
/// the model tells its client instead of a generic failure.
public enum AnswerInterruption: Sendable, Hashable {
  /// The model is shutting down (a server stopping); the request may be retried elsewhere.
  case modelShuttingDown
  /// The answer's tool call did not fit in the output token limit, which the client can raise.
  case toolCallCutShort
}

/// A backend's error that can mean an ``AnswerInterruption``.
public protocol AnswerInterruptingError: Error {
  /// The interruption this failure means, or `nil` when it means none.
  var answerInterruption: AnswerInterruption? { get }
}

extension AnswerInterruption {
  /// The interruption `error` means, if it is an ``AnswerInterruptingError`` that means one.
  public init?(_ error: any Error) {
    guard let interruption = (error as? any AnswerInterruptingError)?.answerInterruption else { return nil }
    self = interruption
  }
}
