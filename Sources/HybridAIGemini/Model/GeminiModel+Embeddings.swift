import HybridAI

/// Gemini's embeddings (`models/{model}:batchEmbedContents`), e.g. `gemini-embedding-001`, or a
/// `hybrid serve` model. ``HybridAI/EmbeddingRequest/purpose`` is sent as `taskType`,
/// ``HybridAI/EmbeddingRequest/dimensions`` as `outputDimensionality`. Gemini's shortened vectors
/// are not unit length; these are scaled to it, as OpenAI's and on-device ones are.
extension GeminiModel: EmbeddingModel {
  /// Errors: those of ``EmbeddingModel/embeddings(for:)``; the service's refusals as the
  /// ``HybridAI/GenerationError`` they mean where they have one, else ``GeminiError``; an answer
  /// without a vector for every text is ``GeminiError/invalidResponse(_:)``.
  public func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse {
    try request.validate()
    let model = "models/" + (name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name)
    let wire = BatchEmbedContentsRequest(requests: request.texts.map { text in
      EmbedContentRequest(model: model, content: .user(text), taskType: request.purpose?.rawValue,
                          outputDimensionality: request.dimensions)
    })
    let answer: BatchEmbedContentsResponse
    do {
      answer = try await client.batchEmbedContents(model: name, wire)
    } catch {
      throw GenerationError.translating(error)
    }
    guard answer.embeddings.count == request.texts.count else {
      throw GeminiError.invalidResponse("the service answered \(answer.embeddings.count) vectors for \(request.texts.count) texts")
    }
    let embeddings = try answer.embeddings.enumerated().map { index, vector in
      guard !vector.values.isEmpty else { throw GeminiError.invalidResponse("vector \(index) is empty") }
      return Embedding(values: vector.values).truncated(to: nil)
    }
    return EmbeddingResponse(embeddings: embeddings, modelVersion: modelIdentifier, source: .cloud)
  }
}
