import HybridAI

/// An OpenAI-compatible server's embeddings (`POST embeddings`): OpenAI's `text-embedding-3-*`,
/// llama-server started with `--embeddings`, Ollama, vLLM, `hybrid serve`.
extension OpenAIModel: EmbeddingModel {
  /// Errors: those of ``EmbeddingModel/embeddings(for:)``; the server's refusals as the
  /// ``HybridAI/GenerationError`` they mean where they have one (a 429 is `rateLimited`), else
  /// ``OpenAIError``; an answer without a vector for every text is ``OpenAIError/invalidResponse(_:)``.
  public func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse {
    try request.validate()
    let answer: EmbeddingsResponse
    do {
      answer = try await client.embeddings(EmbeddingsRequest(model: name, input: .texts(request.texts), encodingFormat: .float,
                                                             dimensions: request.dimensions))
    } catch {
      throw GenerationError.translating(error)
    }
    let items = answer.data.sorted { $0.index < $1.index }
    guard items.map(\.index) == Array(request.texts.indices) else {
      throw OpenAIError.invalidResponse("the server answered \(items.count) vectors at indexes \(items.map(\.index)) for \(request.texts.count) texts")
    }
    let embeddings = try items.map { item in
      guard let values = item.embedding.values, !values.isEmpty else {
        throw OpenAIError.invalidResponse("vector \(item.index) is empty or not base64 of 32-bit floats")
      }
      return Embedding(values: values)
    }
    guard Set(embeddings.map(\.dimensions)).count == 1 else {
      throw OpenAIError.invalidResponse("the vectors have different lengths: \(embeddings.map(\.dimensions))")
    }
    return EmbeddingResponse(embeddings: embeddings, modelVersion: answer.model.isEmpty ? name : answer.model,
                             source: .cloud, promptTokens: answer.usage?.promptTokens)
  }
}
