import HybridAI

extension Gemini {
  /// One answer of a ``GenerateContentResponse``.
  ///
  /// Citation, grounding and URL-context metadata are kept as data (``JSONValue``), exactly as the
  /// API sent them.
  public struct Candidate: Sendable, Hashable, Codable {
    /// The answer (missing when it was blocked).
    public var content: Content?
    /// Why generation stopped; `nil` in all but the last chunk of a stream.
    public var finishReason: FinishReason?
    /// A human-readable explanation of ``finishReason``, when the API gives one.
    public var finishMessage: String?
    /// The answer's safety ratings.
    public var safetyRatings: [SafetyRating]?
    /// Sources the answer recites (`citationSources`), as data.
    public var citationMetadata: JSONValue?
    /// Search or Maps grounding (chunks, supports, queries, search entry point), as data.
    public var groundingMetadata: JSONValue?
    /// Which URLs the URL-context tool fetched and how that went, as data.
    public var urlContextMetadata: JSONValue?
    /// The mean log probability of the answer's tokens.
    public var avgLogprobs: Double?
    /// Per-token log probabilities, as data.
    public var logprobsResult: JSONValue?
    /// Tokens in this candidate.
    public var tokenCount: Int?
    /// The candidate's index in the response.
    public var index: Int?

    /// A candidate from its fields.
    public init(content: Content? = nil, finishReason: FinishReason? = nil, finishMessage: String? = nil,
                safetyRatings: [SafetyRating]? = nil, citationMetadata: JSONValue? = nil,
                groundingMetadata: JSONValue? = nil, urlContextMetadata: JSONValue? = nil,
                avgLogprobs: Double? = nil, logprobsResult: JSONValue? = nil, tokenCount: Int? = nil,
                index: Int? = nil) {
      self.content = content
      self.finishReason = finishReason
      self.finishMessage = finishMessage
      self.safetyRatings = safetyRatings
      self.citationMetadata = citationMetadata
      self.groundingMetadata = groundingMetadata
      self.urlContextMetadata = urlContextMetadata
      self.avgLogprobs = avgLogprobs
      self.logprobsResult = logprobsResult
      self.tokenCount = tokenCount
      self.index = index
    }

    /// The answer's text, thoughts excluded.
    public var text: String { content?.text ?? "" }
  }
}
