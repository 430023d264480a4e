/// A model that turns text into vectors whose distances follow meaning: for search, retrieval
/// (RAG), clustering and deduplication.
///
/// ```swift
/// let model = SystemLanguageModel.default                     // on device (llama.cpp pooling)
/// let query = try await model.embedding(for: "Why is the sky blue?", purpose: .retrievalQuery)
/// let documents = try await model.embeddings(for: ["Rayleigh scattering …", "Bread recipes …"])
/// let best = documents.embeddings.max { query.cosineSimilarity(to: $0) < query.cosineSimilarity(to: $1) }
/// ```
///
/// `SystemLanguageModel` (and `BatchedLanguageModel`), `GeminiModel` and `OpenAIModel` conform.
/// There is no hybrid embedding model on purpose: vectors from two different models live in
/// different spaces and must never be compared, so an index is built and queried with one model.
public protocol EmbeddingModel: Sendable {
  /// A short, stable name for the model, reported as ``EmbeddingResponse/modelVersion`` when the
  /// backend has nothing more precise.
  var modelIdentifier: String { get }

  /// Whether the model runs on this device or in the cloud.
  var source: ModelSource { get }

  /// Whether the model can be used at all right now. Reading it starts nothing.
  var availability: ModelAvailability { get }

  /// One vector for each of `request.texts`, in order.
  ///
  /// Throws ``GenerationError/unsupportedRequest(_:)`` for a request the model cannot serve (no
  /// texts, an empty text, more dimensions than the model has),
  /// ``GenerationError/exceededContextWindowSize(promptTokens:contextSize:)`` for a text longer than
  /// the model takes at once, ``GenerationError/modelUnavailable(_:detail:)`` when it is unavailable,
  /// and the backend's own errors otherwise. Cancelling the calling task stops the work.
  func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse
}

extension EmbeddingModel {
  /// One vector for each of `texts`, in order (see ``embeddings(for:)-(EmbeddingRequest)``).
  public func embeddings(for texts: [String], dimensions: Int? = nil,
                         purpose: EmbeddingPurpose? = nil) async throws -> EmbeddingResponse {
    try await embeddings(for: EmbeddingRequest(texts: texts, dimensions: dimensions, purpose: purpose))
  }

  /// The vector of one text.
  public func embedding(for text: String, dimensions: Int? = nil, purpose: EmbeddingPurpose? = nil) async throws -> Embedding {
    let response = try await embeddings(for: EmbeddingRequest(texts: [text], dimensions: dimensions, purpose: purpose))
    guard let first = response.embeddings.first else {
      throw GenerationError.incompleteResponse(modelVersion: response.modelVersion)
    }
    return first
  }
}
