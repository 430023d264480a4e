import HybridAI

// Several answers to one request, side by side (OpenAI's `n`, Gemini's `candidateCount`): each
// its own generation, so a batched model decodes them together.

extension GenerationRequest {
  /// The request for answer `index` of several: a seeded sampling's seed moves by `index`, so the
  /// answers differ and each is repeatable; answer 0 is the request itself (the one answer a
  /// request for one gives). Greedy and unseeded requests are unchanged (greedy answers are alike).
  func forChoice(_ index: Int) -> GenerationRequest {
    guard index > 0 else { return self }
    var request = self
    switch options.sampling?.strategy {
    case .nucleus(let threshold, let seed?)?:
      request.options.sampling = .random(probabilityThreshold: threshold, seed: seed &+ UInt64(index))
    case .topK(let top, let seed?)?:
      request.options.sampling = .random(top: top, seed: seed &+ UInt64(index))
    default:
      break
    }
    return request
  }
}

extension ServedModel {
  /// `count` whole answers to `request`, generated side by side (answer `i` to
  /// `request.forChoice(i)`), in order; the first failure fails them all.
  func wholeAnswers(to request: GenerationRequest, count: Int) async throws -> [WholeAnswer] {
    let model = self
    let answers = try await withThrowingTaskGroup(of: (Int, WholeAnswer).self) { group in
      for index in 0..<count {
        group.addTask { (index, try await model.wholeAnswer(to: request.forChoice(index))) }
      }
      return try await group.reduce(into: [Int: WholeAnswer]()) { $0[$1.0] = $1.1 }
    }
    return (0..<count).compactMap { answers[$0] }
  }
}

extension ServedModel {
  /// `count` answers to `request` started side by side (answer `i` to `request.forChoice(i)`),
  /// each with its first event already read, so that a failure before any chunk (a bad request,
  /// a full context) is thrown here and becomes an HTTP error; then every answer is stopped.
  func startedAnswers(to request: GenerationRequest, count: Int) async throws -> (streams: [GenerationEvents], firsts: [GenerationEvent?]) {
    let streams = (0..<count).map { GenerationEvents(model.generate(request.forChoice($0))) }
    var firsts: [GenerationEvent?] = []
    do {
      for events in streams { firsts.append(try await events.next()) }
    } catch {
      for events in streams { events.cancel() }
      throw error
    }
    return (streams, firsts)
  }
}

extension Usage {
  /// The usage of several answers to one prompt: the prompt counted once (the first answer's
  /// count), every answer's output.
  init(answersTo completions: [RawResponse]) {
    let first = completions.first?.usage ?? .zero
    self.init(promptTokens: first.promptTokens, cachedPromptTokens: first.cachedPromptTokens,
              outputTokens: completions.reduce(0) { $0 + $1.usage.outputTokens },
              reasoningTokens: completions.reduce(0) { $0 + $1.usage.reasoningTokens },
              draftTokens: completions.reduce(0) { $0 + $1.usage.draftTokens },
              acceptedDraftTokens: completions.reduce(0) { $0 + $1.usage.acceptedDraftTokens })
  }
}
