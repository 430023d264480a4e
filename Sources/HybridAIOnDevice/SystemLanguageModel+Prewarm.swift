import HybridAI

extension SystemLanguageModel {
  /// Tokens a session's context window holds: ``Configuration/contextSize``, capped at the
  /// model's training context. Reads the file's header only. Throws ``OnDeviceModelError`` for a
  /// missing, undelivered or corrupt file.
  public var contextSize: Int {
    get async throws {
      Self.cappedContextSize(configuration.contextSize, trainingContextLength: try trainingContextLength())
    }
  }

  /// The prompt tokens of `request` rendered with the chat template, tool declarations included:
  /// what its answer reports in ``HybridAI/Usage/promptTokens``. Loads the weights (the tokenizer
  /// is part of them) on first use.
  public func tokenCount(for request: GenerationRequest) async throws -> Int {
    try await prepare(request).tokens.count
  }

  /// Loads the weights, makes the session's context and evaluates `request`'s prompt into its KV
  /// cache, so the session's next request evaluates only what it adds to that prompt. Throws
  /// ``HybridAI/GenerationError/modelUnavailable(_:detail:)`` for a model that cannot run,
  /// ``HybridAI/GenerationError/exceededContextWindowSize(promptTokens:contextSize:)`` for a prompt
  /// that does not fit, and the file's typed errors. Cancelling stops the evaluation.
  public func prewarm(_ request: GenerationRequest) async throws {
    try await checkReadiness(for: request)
    let prepared = try await prepare(request)
    let conversation = conversation(for: prepared.weights, in: request.sessionState)
    let cancellation = CancellationFlag()
    try await withTaskCancellationHandler {
      try await conversation.prefill(prepared.prompt, cancellation: cancellation)
    } onCancel: {
      cancellation.cancel()
    }
  }
}
