/// The vectors of an ``EmbeddingRequest``'s texts, and which model made them.
public struct EmbeddingResponse: Sendable, Hashable {
  /// One for each text, in the request's order.
  public var embeddings: [Embedding]
  /// The model that made them: compare only vectors with the same model version.
  public var modelVersion: String
  /// Whether they were made on this device or in the cloud.
  public var source: ModelSource
  /// The tokens all the texts took together, when the model reports it.
  public var promptTokens: Int?

  public init(embeddings: [Embedding], modelVersion: String, source: ModelSource, promptTokens: Int? = nil) {
    self.embeddings = embeddings
    self.modelVersion = modelVersion
    self.source = source
    self.promptTokens = promptTokens
  }
}
