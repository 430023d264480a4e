/// What the API says about the prompt: set when the prompt was blocked (then there are no
/// candidates), and the prompt's safety ratings.
public struct PromptFeedback: Sendable, Hashable, Codable {
  /// Why the prompt was blocked, or `nil` when it was not.
  public var blockReason: Gemini.BlockReason?
  /// A human-readable explanation of the block, when the API gives one.
  public var blockReasonMessage: String?
  /// The prompt's safety ratings.
  public var safetyRatings: [SafetyRating]?

  /// Feedback from its fields.
  public init(blockReason: Gemini.BlockReason? = nil, blockReasonMessage: String? = nil,
              safetyRatings: [SafetyRating]? = nil) {
    self.blockReason = blockReason
    self.blockReasonMessage = blockReasonMessage
    self.safetyRatings = safetyRatings
  }
}
