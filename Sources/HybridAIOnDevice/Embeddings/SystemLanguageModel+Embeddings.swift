import CLlama
import HybridAI

/// The on-device model embeds texts too: llama.cpp pools each text's token states into one vector
/// (the GGUF's own pooling, or the mean for a chat model; see ``SystemLanguageModel/Configuration/pooling``),
/// normalised to unit length — what llama-server's `/v1/embeddings` answers for the same file.
///
/// A text may have up to ``SystemLanguageModel/Configuration/batchSize`` tokens (llama.cpp pools a
/// text within one batch; raise it for longer texts). Texts are tokenized as plain text: control
/// tokens written in them are not special.
extension SystemLanguageModel: EmbeddingModel {
  public func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse {
    try request.validate()
    if case .unavailable(let reason) = availability {
      if reason == .modelNotReady { prepareAssets() }
      throw GenerationError.modelUnavailable(reason, detail: availabilityDetail ?? modelIdentifier)
    }
    let weights = try await loadedWeights()
    try request.validate(modelDimensions: Int(llama_model_n_embd_out(weights.pointer)))
    var tokenized: [[llama_token]] = []
    for text in request.texts {
      try Task.checkCancellation()
      tokenized.append(try weights.tokenize(text, addSpecial: true, parseSpecial: false))
    }
    if let empty = tokenized.firstIndex(where: \.isEmpty) {
      throw GenerationError.unsupportedRequest(.other("text \(empty + 1) of \(tokenized.count) has no tokens"))
    }
    let embedder = LlamaEmbedder.shared(weights: weights, settings: embedderSettings(for: weights), logger: logger)
    let cancellation = CancellationFlag()
    let vectors = try await withTaskCancellationHandler {
      try await embedder.embed(tokenized, cancellation: cancellation)
    } onCancel: {
      cancellation.cancel()
    }
    let embeddings = zip(vectors, tokenized).map { vector, tokens in
      Embedding(values: vector, tokenCount: tokens.count).truncated(to: request.dimensions)
    }
    logger.debug("embedded texts", metadata: ["texts": "\(request.texts.count)", "dimensions": "\(vectors.first?.count ?? 0)"])
    return EmbeddingResponse(embeddings: embeddings, modelVersion: modelIdentifier, source: .onDevice,
                             promptTokens: tokenized.reduce(0) { $0 + $1.count })
  }

  /// How many values each vector has: the model's embedding width. Loads the weights.
  public var embeddingDimensions: Int {
    get async throws { Int(llama_model_n_embd_out(try await loadedWeights().pointer)) }
  }

  /// The longest text, in tokens, the model embeds.
  public var embeddingInputLimit: Int {
    get async throws { embedderSettings(for: try await loadedWeights()).inputLimit }
  }

  private func embedderSettings(for weights: LlamaModelWeights) -> LlamaEmbedder.Settings {
    let contextSize = Self.cappedContextSize(configuration.contextSize, trainingContextLength: weights.trainingContextLength)
    return LlamaEmbedder.Settings(inputLimit: min(configuration.batchSize, contextSize), threads: configuration.threads,
                                  pooling: configuration.pooling)
  }
}
