import HybridAI
import HybridAIOpenAIWire
import Hummingbird
import Logging

/// Answers one `POST …/embeddings` request with a served model: one vector per text, as JSON
/// numbers or (`encoding_format: base64`) base64 of little-endian 32-bit floats.
struct EmbeddingsAnswer: Sendable {
  let model: ServedModel
  let logger: Logger

  func answer(_ wire: EmbeddingsRequest) async throws -> Response {
    guard let texts = wire.input.texts else {
      throw OpenAIAPIError.invalidRequest(
        "This server embeds text: send input as a string or an array of strings. Token ids are not accepted "
          + "(LangChain's OpenAIEmbeddings sends them unless check_embedding_ctx_length=False).", param: "input")
    }
    let response: EmbeddingResponse
    do {
      response = try await model.embeddings(for: EmbeddingRequest(texts: texts, dimensions: wire.dimensions), logger: logger)
    } catch GenerationError.exceededContextWindowSize(let tokens, let limit) {
      throw OpenAIAPIError.invalidRequest(
        "An input has \(tokens) tokens; this model embeds at most \(limit) tokens per input. Shorten or split it.",
        param: "input", code: "context_length_exceeded")
    } catch GenerationError.unsupportedRequest(let reason) {
      let text = reason.description
      throw OpenAIAPIError.invalidRequest(text.prefix(1).uppercased() + text.dropFirst() + ".",
                                          param: text.hasPrefix("dimensions") ? "dimensions" : "input")
    }
    let encoding = wire.encodingFormat ?? .float
    let data = response.embeddings.enumerated().map { index, embedding in
      EmbeddingsResponse.Item(index: index, embedding: EmbeddingsVector(embedding.values, encoding: encoding))
    }
    return try OpenAIResponses.json(EmbeddingsResponse(data: data, model: response.modelVersion,
                                                       usage: .init(promptTokens: response.promptTokens ?? 0)))
  }
}
