import HybridAI

extension GeminiModel {
  /// Answers the last prompt of `request.transcript` over `streamGenerateContent?alt=sse`.
  ///
  /// Yields the answer's text as it arrives (thought summaries are not part of it), then one
  /// ``HybridAI/GenerationEvent/completed(_:)`` whose ``HybridAI/RawResponse`` has the server's
  /// `modelVersion` (or ``modelIdentifier``), usage from `usageMetadata` (see
  /// ``HybridAI/Usage/init(gemini:)``), the finish reason, client-side timings, and
  /// ``HybridAI/ProviderContent`` with provider `gemini`: the whole answer ``Gemini/Content``
  /// (thoughts, signatures, function calls, inline data; adjacent text joined) and the response
  /// metadata (``GenerateContentResponse/providerMetadata``).
  ///
  /// Cancelling the consuming task cancels the HTTP request.
  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        let raw = try await answer(request) { continuation.yield(.textDelta($0)) }
        continuation.yield(.completed(raw))
        continuation.finish()
      } catch {
        if !(error is CancellationError) {
          logger.debug("Gemini generation failed", metadata: ["error": "\(error)"])
        }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  private func answer(_ request: GenerationRequest, delta: (String) -> Void) async throws -> RawResponse {
    let wire = GenerateContentRequest(transcript: request.transcript, options: request.options)
    let clock = ContinuousClock()
    let start = clock.now
    var firstToken: ContinuousClock.Instant?
    var accumulator = GenerateContentResponse.Accumulator()
    for try await chunk in client.streamGenerateContent(model: name, wire) {
      accumulator.add(chunk)
      for part in chunk.candidates.first?.content?.parts ?? [] where !part.isThought {
        guard let text = part.text, !text.isEmpty else { continue }
        if firstToken == nil { firstToken = clock.now }
        delta(text)
      }
    }
    try Task.checkCancellation()
    let end = clock.now
    let response = accumulator.response
    let candidate = response.candidates.first
    let usage = Usage(gemini: response.usageMetadata)
    let timings = GenerationTimings(
      promptEvaluation: (firstToken ?? end) - start, timeToFirstToken: firstToken.map { $0 - start },
      generation: firstToken.map { end - $0 } ?? .zero, evaluatedPromptTokens: usage.evaluatedPromptTokens,
      generatedTokens: usage.outputTokens)
    let content = (try? JSONValue(encoding: candidate?.content ?? Gemini.Content(role: Gemini.Content.modelRole,
                                                                                   parts: []))) ?? .null
    logger.debug("Gemini answered", metadata: [
      "modelVersion": "\(response.modelVersion ?? modelIdentifier)",
      "finishReason": "\(candidate?.finishReason?.rawValue ?? "none")",
      "promptTokens": "\(usage.promptTokens)", "outputTokens": "\(usage.outputTokens)",
    ])
    return RawResponse(
      modelVersion: response.modelVersion ?? modelIdentifier, source: .cloud, usage: usage,
      finishReason: FinishReason(gemini: candidate?.finishReason), timings: timings,
      providerContent: ProviderContent(provider: Gemini.providerName, content: content,
                                       metadata: response.providerMetadata))
  }
}
