import CLlama
import HybridAI
import Logging

/// One session's llama.cpp context: its KV cache and the tokens the cache holds.
///
/// Each turn the whole conversation is rendered and tokenized again; the longest prefix that is
/// already in the cache is kept and only the rest is evaluated, so turn N costs only its new tokens
/// (reported as ``Usage/cachedPromptTokens``). The actor runs on the shared llama thread, so the
/// blocking C calls of a generation never hold a thread of Swift's cooperative pool.
///
/// A turn gives the llama thread up after every generated token and every prompt batch, so other
/// sessions and the batching engine's steps take turns with it token by token: a short answer is
/// not queued behind the whole of a long one. Turns of one conversation run one at a time, in order.
actor LlamaConversation: LlamaContextOwner {
  struct Settings: Sendable, Hashable {
    var contextSize: Int
    var batchSize: Int
    var threads: Int
    var speculation: SpeculativeDecoding = .off
  }

  /// All contexts run on one llama thread: libgomp keeps an OpenMP thread team per calling OS
  /// thread, and a queue per session left several teams competing for 2 cores (decode varied
  /// 65–125 tok/s). Generations of different sessions therefore take turns.
  static let sharedExecutor = DispatchQueueExecutor(label: "HybridAI.llama")
  nonisolated var unownedExecutor: UnownedSerialExecutor { Self.sharedExecutor.asUnownedSerialExecutor() }

  let weights: LlamaModelWeights
  let settings: Settings
  /// The draft model's context, when ``Settings/speculation`` drafts with one (made on first use).
  let draftModel: DraftModelContext?
  private var context: OpaquePointer?
  /// The tokens whose keys and values are in the context's memory, in order (a medium's places
  /// hold its placeholders, ``MultimodalPrompt/placeholder(for:at:)``).
  private var cachedTokens: [llama_token] = []
  /// The batch of a chosen token and its draft (speculative decoding), made on first use.
  private var draftBatch: LlamaBatch?
  /// Whether a turn is under way; later turns wait in ``waitingTurns``, oldest first.
  private var isTakingTurn = false
  private var waitingTurns: [CheckedContinuation<Void, Never>] = []
  private let logger: Logger

  /// `draftWeights`: the checked draft model, when ``Settings/speculation`` names one.
  init(weights: LlamaModelWeights, settings: Settings, draftWeights: LlamaModelWeights? = nil, logger: Logger) {
    self.weights = weights
    self.settings = settings
    self.logger = logger
    draftModel = draftWeights.map {
      DraftModelContext(weights: $0, targetVocabularySize: weights.vocabularySize,
                        minimumProbability: settings.speculation.minimumDraftProbability,
                        contextSizePerSequence: settings.contextSize, batchSize: settings.batchSize,
                        threads: settings.threads, logger: logger)
    }
  }

  isolated deinit {
    LlamaContextRegistry.shared.unregister(ObjectIdentifier(self))
    freeContext()
  }

  /// Frees the context now (the process is stopping); a later turn would make a new one.
  func freeContext() {
    draftModel?.release()
    guard let context else { return }
    LlamaRuntime.checkAlive("llama_free")
    llama_free(context)
    self.context = nil
    trimCache(to: 0)
    logger.debug("freed llama context")
  }

  /// Generates the answer to an already-templated prompt.
  ///
  /// With `guidance`, tokens are chosen under its grammar and tool calls arrive as one
  /// ``GenerationEvent/toolCalls(_:)`` event; text arrives as ``GenerationEvent/textDelta(_:)``.
  func respond(
    to prompt: MultimodalPrompt, options: GenerationOptions, guidance: DecodingGuidance?, modelVersion: String,
    requestStarted: ContinuousClock.Instant, cancellation: CancellationFlag,
    onEvent emit: @Sendable (GenerationEvent) -> Void
  ) async throws -> RawResponse {
    let promptTokens = prompt.tokens
    let context = try await takeTurn(for: promptTokens, cancellation: cancellation)
    defer { endTurn() }
    llama_set_abort_callback(context, { data in
      guard let data else { return false }
      return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
    }, Unmanaged.passUnretained(cancellation).toOpaque())
    defer { if self.context == context { llama_set_abort_callback(context, nil, nil) } }   // not if freed meanwhile

    // 1. Keep the cached prefix, evaluate the rest.
    let promptStarted = ContinuousClock.now
    let reused = reuseCachedPrefix(of: prompt, in: context)
    try await evaluate(prompt, from: reused, in: context, cancellation: cancellation)
    let promptEvaluation = ContinuousClock.now - promptStarted

    // 2. Sample until the model ends its turn, a stop sequence, the token limit, or a full context.
    //    With speculation, a chosen token is evaluated together with a draft of the tokens that
    //    may follow it; each drafted token the model then chooses too is already in the cache.
    let selector = try TokenSelector(options: options, guidance: guidance, weights: weights)
    var text = GeneratedTextEmitter(stopSequences: options.stopSequences)
    var output = GuidedOutput(guidance: guidance)
    var logProbabilities = TokenLogProbabilityRecorder(options: options)
    var speculation = SequenceSpeculation(settings.speculation.fitting(batchSize: settings.batchSize), prompt: prompt.textTokens,
                                          onGPU: weights.placement.usesGPU, draftModel: draftModel)
    let limit = options.maximumResponseTokens ?? Int.max
    var generated = 0
    var firstToken: ContinuousClock.Instant?
    var finishReason = FinishReason.maxTokens
    /// The logits row of the next choice, and the drafted tokens evaluated after it, not yet checked.
    var row: Int32 = -1
    var draft: ArraySlice<llama_token> = []
    while generated < limit {
      if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
      guard cachedTokens.count - draft.count < settings.contextSize else { finishReason = .contextWindowFull; break }
      let token = selector.next(context, at: row)
      if firstToken == nil { firstToken = .now }
      if weights.isEndOfGeneration(token) { finishReason = .stop; break }
      generated += 1
      if logProbabilities != nil, let logits = llama_get_logits_ith(context, row) {
        logProbabilities?.record(token, from: logits, weights: weights)
      }
      let metStop = text.append(weights.bytes(of: token), emit: { output.route($0, to: emit) })
      if let entries = logProbabilities?.takeDelivered(textBytes: text.emittedByteCount), !entries.isEmpty {
        emit(.logProbabilities(entries))
      }
      if metStop { finishReason = .stop; break }
      speculation?.append(token)
      if let drafted = draft.first {
        if drafted == token {   // in the cache already, its logits in the next row
          draft.removeFirst()
          row += 1
          speculation?.accept()
          continue
        }
        dropDraft(draft.count, in: context)
        draft = []
      }
      guard generated < limit else { break }
      let room = min(limit - generated - 1, settings.contextSize - cachedTokens.count - 2)
      let proposal = speculation?.draft(room: room) ?? []
      if proposal.isEmpty {
        try await evaluate([token], in: context, cancellation: cancellation)
        row = -1
      } else {
        try await evaluateWithDraft(token, proposal, in: context, cancellation: cancellation)
        draft = proposal[...]
        row = 0
      }
    }
    speculation?.closeDraft()
    text.finish { output.route($0, to: emit) }   // what was held back: a partial character or stop sequence
    try output.finish(to: emit)
    if let rest = logProbabilities?.takeRest(metStopSequence: text.metStopSequence, textBytes: text.emittedByteCount),
       !rest.isEmpty {
      emit(.logProbabilities(rest))
    }
    if selector.rejectedTokens > 0 {
      logger.debug("constrained decoding", metadata: ["rejectedTokens": "\(selector.rejectedTokens)", "generated": "\(generated)"])
    }

    let finished = ContinuousClock.now
    var response = RawResponse(
      modelVersion: modelVersion,
      source: .onDevice,
      usage: prompt.usage(cached: reused, outputTokens: generated, draftTokens: speculation?.draftedTokens ?? 0,
                          acceptedDraftTokens: speculation?.acceptedTokens ?? 0),
      finishReason: finishReason,
      timings: GenerationTimings(
        promptEvaluation: promptEvaluation,
        timeToFirstToken: firstToken.map { $0 - requestStarted },
        generation: firstToken.map { finished - $0 } ?? .zero,
        evaluatedPromptTokens: promptTokens.count - reused,
        generatedTokens: generated))
    response.logProbabilities = logProbabilities?.handedOn
    return response
  }

  /// Evaluates `promptTokens` into the cache without answering (a prewarm): the next turn whose
  /// prompt starts with them evaluates only the rest. Makes the context when there is none.
  func prefill(_ prompt: MultimodalPrompt, cancellation: CancellationFlag) async throws {
    let context = try await takeTurn(for: prompt.tokens, cancellation: cancellation)
    defer { endTurn() }
    guard !prompt.tokens.isEmpty else { return }
    let started = ContinuousClock.now
    let reused = reuseCachedPrefix(of: prompt, in: context)
    try await evaluate(prompt, from: reused, in: context, cancellation: cancellation)
    logger.debug("prefilled the cache", metadata: [
      "tokens": "\(prompt.tokens.count)", "reused": "\(reused)", "seconds": "\((ContinuousClock.now - started).seconds)",
    ])
  }

  // MARK: - Context and cache

  private func makeContextIfNeeded() throws -> OpaquePointer {
    if let context { return context }
    var params = llama_context_default_params()
    params.n_ctx = UInt32(settings.contextSize)
    params.n_batch = UInt32(settings.batchSize)
    params.n_ubatch = UInt32(settings.batchSize)
    params.n_seq_max = 1
    params.n_threads = Int32(settings.threads)
    params.n_threads_batch = Int32(settings.threads)
    params.no_perf = true
    guard let made = llama_init_from_model(weights.pointer, params) else {
      throw OnDeviceModelError.contextCreationFailed(contextSize: settings.contextSize)
    }
    logger.debug("created llama context", metadata: [
      "contextSize": "\(settings.contextSize)", "threads": "\(settings.threads)",
    ])
    context = made
    LlamaContextRegistry.shared.register(self)
    return made
  }

  /// Drops from the cache everything after the longest prefix shared with `prompt` (media
  /// whole), keeping at least one place of `prompt` to evaluate (its logits start the answer).
  /// Returns the prefix length.
  private func reuseCachedPrefix(of prompt: MultimodalPrompt, in context: OpaquePointer) -> Int {
    var shared = prompt.reusablePrefixLength(cached: cachedTokens)
    if shared < cachedTokens.count {
      if !llama_memory_seq_rm(llama_get_memory(context), 0, Int32(shared), -1) {
        llama_memory_clear(llama_get_memory(context), true)
        shared = 0
      }
      trimCache(to: shared)
    }
    return shared
  }

  /// Forgets the cache's entries from place `count` on (they were removed from llama.cpp's memory).
  private func trimCache(to count: Int) {
    guard count < cachedTokens.count else { return }
    cachedTokens.removeSubrange(count...)
  }

  /// Checks that `promptTokens` fit, waits for this conversation's turn and returns its context
  /// (made when there is none). The caller ends the turn (``endTurn()``) once this returned.
  private func takeTurn(for promptTokens: [llama_token], cancellation: CancellationFlag) async throws -> OpaquePointer {
    guard promptTokens.count < settings.contextSize else {
      throw GenerationError.exceededContextWindowSize(promptTokens: promptTokens.count, contextSize: settings.contextSize)
    }
    await beginTurn()
    do {
      if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
      return try makeContextIfNeeded()
    } catch {
      endTurn()
      throw error
    }
  }

  /// Waits until no other turn of this conversation is under way.
  private func beginTurn() async {
    guard isTakingTurn else { return isTakingTurn = true }
    await withCheckedContinuation { waitingTurns.append($0) }   // endTurn() hands the turn over
  }

  /// Hands the turn to the oldest waiting one, if any.
  private func endTurn() {
    if waitingTurns.isEmpty {
      isTakingTurn = false
    } else {
      waitingTurns.removeFirst().resume()
    }
  }

  /// Lets other jobs of the llama thread run, then checks that this turn may go on: not cancelled,
  /// and the context not freed meanwhile (``freeContext()`` when the process stops).
  private func giveOtherWorkATurn(holding context: OpaquePointer, cancellation: CancellationFlag) async throws {
    await Task.yield()
    if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
    guard self.context == context else { throw OnDeviceModelError.shuttingDown }
  }

  /// Evaluates a chosen token and a draft of the tokens that may follow it in one pass, with the
  /// logits of each (rows 0…draft.count), appending them to the cache.
  private func evaluateWithDraft(_ token: llama_token, _ draft: [llama_token], in context: OpaquePointer,
                                 cancellation: CancellationFlag) async throws {
    let tokens = [token] + draft
    if draftBatch == nil || draftBatch!.capacity < tokens.count { draftBatch = LlamaBatch(capacity: settings.batchSize) }
    let batch = draftBatch!
    batch.removeAll()
    for (offset, token) in tokens.enumerated() {
      batch.append(token, position: cachedTokens.count + offset, sequence: 0, wantsLogits: true)
    }
    let result = llama_decode(context, batch.raw)
    guard result == 0 else {
      llama_memory_clear(llama_get_memory(context), true)
      trimCache(to: 0)
      if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
      throw OnDeviceModelError.decodeFailed(code: result)
    }
    cachedTokens.append(contentsOf: tokens)
    try await giveOtherWorkATurn(holding: context, cancellation: cancellation)
  }

  /// Removes the last `count` tokens (a draft the model left) from the cache.
  private func dropDraft(_ count: Int, in context: OpaquePointer) {
    let kept = cachedTokens.count - count
    if llama_memory_seq_rm(llama_get_memory(context), 0, Int32(kept), -1) {
      cachedTokens.removeLast(count)
    } else {   // cannot happen for attention caches; start over rather than keep wrong entries
      llama_memory_clear(llama_get_memory(context), true)
      trimCache(to: 0)
    }
  }

  /// Evaluates `prompt` from place `start` on: text in batches, each medium through its
  /// projector (encoded, then its embeddings evaluated), appending them to the cache.
  private func evaluate(_ prompt: MultimodalPrompt, from start: Int, in context: OpaquePointer,
                        cancellation: CancellationFlag) async throws {
    var next = start
    for span in prompt.media where span.end > start {
      try await evaluate(prompt.tokens[next..<span.start], in: context, cancellation: cancellation)
      guard let projector = prompt.projector, let chunk = prompt.chunk(of: span) else {
        throw OnDeviceModelError.tokenizationFailed
      }
      let result = projector.evaluate(chunk, in: context, at: cachedTokens.count, batchSize: settings.batchSize,
                                      logitsLast: span.end == prompt.tokens.count)
      guard result == 0 else {
        llama_memory_clear(llama_get_memory(context), true)
        trimCache(to: 0)
        if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
        throw OnDeviceModelError.decodeFailed(code: result)
      }
      cachedTokens.append(contentsOf: prompt.tokens[span.start..<span.end])
      next = span.end
      try await giveOtherWorkATurn(holding: context, cancellation: cancellation)
    }
    try await evaluate(prompt.tokens[next...], in: context, cancellation: cancellation)
  }

  /// Evaluates tokens in batches, appending them to the cache, and gives other work a turn after
  /// each batch. On a failed or aborted decode the cache is cleared, because a partly evaluated
  /// batch leaves it in an unknown state.
  private func evaluate(_ tokens: some Collection<llama_token>, in context: OpaquePointer,
                        cancellation: CancellationFlag) async throws {
    var remaining = tokens[...]
    while !remaining.isEmpty {
      var batch = Array(remaining.prefix(settings.batchSize))
      remaining = remaining.dropFirst(batch.count)
      let result = batch.withUnsafeMutableBufferPointer { buffer in
        llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
      }
      guard result == 0 else {
        llama_memory_clear(llama_get_memory(context), true)
        trimCache(to: 0)
        if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
        throw OnDeviceModelError.decodeFailed(code: result)
      }
      cachedTokens.append(contentsOf: batch)
      try await giveOtherWorkATurn(holding: context, cancellation: cancellation)   // the cache is whole here
    }
  }
}
