extension GenerativeModelSession {
  /// Gets the model ready for the session's next request, so its first answer starts sooner: on
  /// device the weights load and the instructions, the conversation so far and `promptPrefix` are
  /// evaluated into the session's cache; in the cloud the model is checked and a connection opened.
  ///
  /// ```swift
  /// let session = GenerativeModelSession(model: SystemLanguageModel.default, instructions: "Answer briefly.")
  /// try await session.prewarm(promptPrefix: "Translate to French:")   // while the user types
  /// let response = try await session.respond(to: "Translate to French: good morning")
  /// ```
  ///
  /// Unlike Foundation Models' fire-and-forget `prewarm`, this one returns when the work is done
  /// and throws what a request would: ``GenerationError/modelUnavailable(_:detail:)`` for a model
  /// that cannot be used, a backend's typed error for a missing or corrupt file. Wrap it in a `Task`
  /// to warm in the background. A hybrid model warms the model that would answer now.
  public func prewarm(promptPrefix: String? = nil) async throws {
    let request = nextRequest(prompt: promptPrefix?.isEmpty == false ? promptPrefix : nil)
    let started = ContinuousClock.now
    try await model.prewarm(request)
    logger.debug("prewarmed", metadata: [
      "entries": "\(request.transcript.count)", "seconds": "\((ContinuousClock.now - started).seconds)",
    ])
  }
}
