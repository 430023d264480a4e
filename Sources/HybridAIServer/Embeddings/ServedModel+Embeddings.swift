import HybridAI
import HybridAIServing
import Logging

extension ServedModel {
  /// The most texts one request may embed (OpenAI's limit for `input`).
  static let maximumTextsPerRequest = 2_048

  /// The vectors of `request`'s texts, their tokens charged to the caller's API key
  /// (``AuthenticatedKey/current``); ``modelVersion`` says which served model made them. Throws
  /// ``HybridAI/GenerationError/unsupportedCapability(_:)`` when this name does not embed.
  func embeddings(for request: EmbeddingRequest, logger: Logger) async throws -> EmbeddingResponse {
    guard let embedder else { throw GenerationError.unsupportedCapability("the model \(name) does not embed texts") }
    guard request.texts.count <= Self.maximumTextsPerRequest else {
      throw GenerationError.unsupportedRequest(.other(
        "\(request.texts.count) texts in one request; at most \(Self.maximumTextsPerRequest)"))
    }
    logger.debug("embedding", metadata: ["model": "\(name)", "texts": "\(request.texts.count)"])
    var response = try await embedder.embeddings(for: request)
    if let key = AuthenticatedKey.current, key.chargesTokens { await key.charge(tokens: response.promptTokens ?? 0) }
    response.modelVersion = modelVersion
    return response
  }
}
