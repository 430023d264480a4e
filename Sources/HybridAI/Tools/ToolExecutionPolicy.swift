/// How a session runs the tool loop.
public struct ToolExecutionPolicy: Sendable, Hashable {
  /// What happens when a tool throws.
  public enum FailureHandling: Sendable, Hashable {
    /// The error's description becomes the tool's output, so the model can react to it.
    case reportToModel
    /// `respond` throws a ``ToolCallError``.
    case rethrow
  }

  /// What happens when the model asks for tools again after ``maximumRounds`` rounds.
  public enum LimitHandling: Sendable, Hashable {
    /// `respond` throws ``GenerationError/toolCallLimitExceeded(rounds:)``.
    case fail
    /// The model is asked once more with ``ToolChoice/none``, so it must answer with what it has.
    case answerWithoutTools
  }

  /// The most rounds of tool calls in one `respond`.
  public var maximumRounds: Int
  /// What happens when a tool throws.
  public var failure: FailureHandling
  /// What happens when the model wants more rounds than ``maximumRounds``.
  public var limit: LimitHandling

  public init(maximumRounds: Int = 8, failure: FailureHandling = .reportToModel, limit: LimitHandling = .fail) {
    self.maximumRounds = maximumRounds
    self.failure = failure
    self.limit = limit
  }

  /// Eight rounds; tool errors are reported to the model.
  public static let `default` = ToolExecutionPolicy()
}

/// A tool threw and the session's policy is ``ToolExecutionPolicy/FailureHandling/rethrow``.
public struct ToolCallError: Error, Sendable, CustomStringConvertible {
  /// The tool that failed.
  public let toolName: String
  /// The call's arguments, as JSON.
  public let arguments: String
  /// What the tool threw.
  public let underlyingError: any Error

  public init(toolName: String, arguments: String, underlyingError: any Error) {
    self.toolName = toolName
    self.arguments = arguments
    self.underlyingError = underlyingError
  }

  public var description: String { "the tool \(toolName) failed: \(underlyingError)" }
}
