import HybridAI
import HybridAIHTTP

extension GeminiModel {
  /// Answers the last prompt of `request.transcript` over `streamGenerateContent?alt=sse`.
  ///
  /// The request carries the transcript, options, tools and response format (see
  /// ``GenerateContentRequest/init(_:)``). Yields the answer's text as it arrives (thought
  /// summaries are not part of it) and each file it carries inline (`inlineData`: an image, a
  /// sound) as a ``HybridAI/GenerationEvent/artifact(_:)`` where it comes; when the model calls functions, one
  /// ``HybridAI/GenerationEvent/toolCalls(_:)`` with every call of the answer (Gemini's ids, or new
  /// ones when it sent none), checked against the request's tools; then one
  /// ``HybridAI/GenerationEvent/completed(_:)`` whose ``HybridAI/RawResponse`` has the server's
  /// `modelVersion` (or ``modelIdentifier``), usage from `usageMetadata` (see
  /// ``HybridAI/Usage/init(gemini:)``), the finish reason, client-side timings, and
  /// ``HybridAI/ProviderContent`` with provider `gemini`: the whole answer ``Gemini/Content``
  /// (thoughts, signatures, function calls; adjacent text joined; each inline file replaced by
  /// ``Gemini/generatedFilePlaceholder``, so the transcript never holds its bytes) and the response
  /// metadata (``GenerateContentResponse/providerMetadata``).
  ///
  /// Fails with ``HybridAI/GenerationError/unknownTool(name:arguments:)`` for a call of a function
  /// the request does not offer, ``HybridAI/GenerationError/invalidToolArguments(toolName:arguments:reason:)``
  /// for arguments that do not follow the tool's schema, and — with a response format —
  /// ``HybridAI/GenerationError/invalidStructuredOutput(rawContent:reason:)`` for an answer that
  /// is not JSON following the schema.
  ///
  /// Cancelling the consuming task cancels the HTTP request.
  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    CloudGeneration.stream(logger: logger, service: "Gemini") { emit in try await answer(request, emit: emit) }
  }

  private func answer(_ request: GenerationRequest, emit: (GenerationEvent) -> Void) async throws -> CloudGeneration.Answer {
    try request.requireConversation()
    let wire = try GenerateContentRequest(request)
    let clock = ContinuousClock()
    let start = clock.now
    var firstToken: ContinuousClock.Instant?
    var text = ""
    var files = 0
    var accumulator = GenerateContentResponse.Accumulator()
    for try await chunk in client.streamGenerateContent(model: name, wire) {
      accumulator.add(chunk)
      for part in chunk.candidates.first?.content?.parts ?? [] where !part.isThought {
        switch part.data {
        case .text(let piece) where !piece.isEmpty:
          if firstToken == nil { firstToken = clock.now }
          text += piece
          emit(.textDelta(piece))
        case .inlineData(let blob):
          if firstToken == nil { firstToken = clock.now }
          files += 1
          emit(.artifact(try Gemini.artifact(from: blob, index: files)))
        case .functionCall:
          if firstToken == nil { firstToken = clock.now }
        default:
          break
        }
      }
    }
    try Task.checkCancellation()
    let end = clock.now
    let response = accumulator.response
    let candidate = response.candidates.first
    let toolCalls = try checkedToolCalls(in: candidate?.content, for: request)
    if toolCalls.isEmpty {
      try request.checkStructuredAnswer(text, reachedTokenLimit: candidate?.finishReason == .maxTokens)
    }
    let usage = Usage(gemini: response.usageMetadata)
    let timings = GenerationTimings(
      promptEvaluation: (firstToken ?? end) - start, timeToFirstToken: firstToken.map { $0 - start },
      generation: firstToken.map { end - $0 } ?? .zero, evaluatedPromptTokens: usage.evaluatedPromptTokens,
      generatedTokens: usage.outputTokens)
    let answer = Gemini.withoutInlineData(candidate?.content ?? Gemini.Content(role: Gemini.Content.modelRole, parts: []))
    let content = (try? JSONValue(encoding: answer)) ?? .null
    logger.debug("Gemini answered", metadata: [
      "modelVersion": "\(response.modelVersion ?? modelIdentifier)",
      "finishReason": "\(candidate?.finishReason?.rawValue ?? "none")",
      "promptTokens": "\(usage.promptTokens)", "outputTokens": "\(usage.outputTokens)",
      "toolCalls": "\(toolCalls.count)", "files": "\(files)",
    ])
    var raw = RawResponse(
      modelVersion: response.modelVersion ?? modelIdentifier, source: .cloud, usage: usage,
      finishReason: FinishReason(gemini: candidate?.finishReason), timings: timings,
      providerContent: ProviderContent(provider: Gemini.providerName, content: content,
                                       metadata: response.providerMetadata))
    raw.logProbabilities = candidate?.logprobsResult.flatMap { try? $0.decode(as: LogprobsResult.self) }?.entries
    return (toolCalls, raw)
  }
}
