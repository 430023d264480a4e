extension GenerativeModelSession {
  /// A complete answer.
  public struct Response<Content: Sendable>: Sendable {
    /// The answer.
    public let content: Content
    /// The answer's text as the model produced it.
    public let rawContent: String
    /// The transcript entries this turn added (the prompt and the response).
    public let transcriptEntries: [Transcript.Entry]
    /// Which model answered, token usage, why it stopped, timings.
    public let rawResponse: RawResponse
    /// The artifacts the tools and the model made during this turn, in the order they were made,
    /// each with the local file URL where the session's ``GenerativeModelSession/artifactStore``
    /// keeps it. Files the model made are also attachment segments of the response entry.
    public let artifacts: [ArtifactReference]
    /// What the session's ``ContextPolicy`` did to fit the conversation before this answer, or
    /// `nil` when it fitted as it was.
    public let contextCompaction: ContextCompaction?

    /// Token counts of this turn.
    public var usage: Usage { rawResponse.usage }
    /// Why generation ended.
    public var finishReason: FinishReason { rawResponse.finishReason }

    public init(content: Content, rawContent: String, transcriptEntries: [Transcript.Entry], rawResponse: RawResponse,
                artifacts: [ArtifactReference] = [], contextCompaction: ContextCompaction? = nil) {
      self.content = content
      self.rawContent = rawContent
      self.transcriptEntries = transcriptEntries
      self.rawResponse = rawResponse
      self.artifacts = artifacts
      self.contextCompaction = contextCompaction
    }
  }
}
