/// What a ``GenerativeModelSession`` does when its conversation no longer fits the model's
/// context window.
///
/// ```swift
/// let session = GenerativeModelSession(model: model, instructions: "Be brief.", contextPolicy: .rollingWindow)
/// let response = try await session.respond(to: longQuestion)
/// if let compaction = response.contextCompaction { print(compaction) }   // "dropped the 4 oldest entries …"
/// ```
///
/// The policy is applied before each request is routed, and only when the model that would answer
/// says the prompt does not fit (``UnsupportedReason/exceedsContextWindow(promptTokens:contextSize:)``):
/// a ``HybridModel`` whose primary cannot take the conversation first tries its secondary (a cloud
/// model with a larger window), and only a conversation no model can take is compacted. The
/// instructions and the new prompt are always kept; the session's ``GenerativeModelSession/transcript``
/// becomes the compacted one, and the response says what was done
/// (``GenerativeModelSession/Response/contextCompaction``).
public enum ContextPolicy: Sendable, Hashable {
  /// Throw ``GenerationError/exceededContextWindowSize(promptTokens:contextSize:)`` (the default,
  /// as in Foundation Models): the app decides what to keep.
  case fail
  /// Drop the oldest turns (a prompt with its tool calls and answer) until the conversation fits
  /// with room for the answer.
  case rollingWindow
  /// Replace the oldest turns with a summary the model itself writes, kept in the instructions,
  /// and keep at least the latest `keepingLatestTurns` turns word for word (fewer when they do not fit).
  case summarizing(keepingLatestTurns: Int = 2)
}

/// What a ``ContextPolicy`` did to make a conversation fit, reported on the response.
public struct ContextCompaction: Sendable, Hashable, CustomStringConvertible {
  /// The policy that acted: ``ContextPolicy/rollingWindow`` or ``ContextPolicy/summarizing(keepingLatestTurns:)``.
  public var policy: ContextPolicy
  /// Transcript entries removed (dropped, or folded into the summary).
  public var removedEntries: Int
  /// The prompt tokens before, as the model counted them, and its context window.
  public var promptTokensBefore: Int
  /// The context window that was exceeded.
  public var contextSize: Int
  /// The prompt tokens after, when the model can count them.
  public var promptTokensAfter: Int?
  /// The summary now in the instructions, for ``ContextPolicy/summarizing(keepingLatestTurns:)``.
  public var summary: String?
  /// What writing the summary cost.
  public var summaryUsage: Usage?

  public init(policy: ContextPolicy, removedEntries: Int, promptTokensBefore: Int, contextSize: Int,
              promptTokensAfter: Int? = nil, summary: String? = nil, summaryUsage: Usage? = nil) {
    self.policy = policy
    self.removedEntries = removedEntries
    self.promptTokensBefore = promptTokensBefore
    self.contextSize = contextSize
    self.promptTokensAfter = promptTokensAfter
    self.summary = summary
    self.summaryUsage = summaryUsage
  }

  public var description: String {
    let action = summary == nil ? "dropped" : "summarized"
    let after = promptTokensAfter.map { " → \($0)" } ?? ""
    return "\(action) the \(removedEntries) oldest transcript entries: \(promptTokensBefore)\(after) prompt tokens, "
      + "context window \(contextSize)"
  }
}
