/// How a session runs the tool loop.
public struct ToolExecutionPolicy: Sendable, Hashable {
  /// What happens when a tool throws.
  public enum FailureHandling: Sendable, Hashable {
    /// The error's description becomes the tool's output, so the model can react to it.
    case reportToModel
    /// `respond` throws a ``ToolCallError``.
    case rethrow
  }

  /// The most times the model may ask for tools in one `respond` before
  /// ``GenerationError/toolCallLimitExceeded(rounds:)`` is thrown.
  public var maximumRounds: Int
  /// What happens when a tool throws.
  public var failure: FailureHandling

  public init(maximumRounds: Int = 8, failure: FailureHandling = .reportToModel) {
    self.maximumRounds = maximumRounds
    self.failure = failure
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
