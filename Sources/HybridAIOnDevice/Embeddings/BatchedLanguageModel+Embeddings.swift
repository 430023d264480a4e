import HybridAI

/// The batched model embeds as ``SystemLanguageModel`` does, on the same weights, in a context of
/// its own beside the batch's (one decode of many texts at a time, taking turns with the batch's steps).
extension BatchedLanguageModel: EmbeddingModel {
  public func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse {
    try await singleSession.embeddings(for: request)
  }

  /// How many values each vector has (see ``SystemLanguageModel/embeddingDimensions``).
  public var embeddingDimensions: Int {
    get async throws { try await singleSession.embeddingDimensions }
  }
}
