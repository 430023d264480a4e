import CLlama
import HybridAI
import Logging

/// Continuous batching on one llama.cpp context: every active request is a llama.cpp sequence,
/// and each step evaluates the next token of every decoding sequence in a single `llama_decode`,
/// so concurrent requests share each pass over the weights.
///
/// - Requests beyond ``Settings/maxSequences`` wait in a first-in, first-out queue.
/// - Prompts are evaluated between decode passes, in chunks: while sequences are decoding, about
///   ``promptTokensPerStepWhileDecoding`` prompt tokens per step, so a long prompt delays the
///   running streams only a little per step. With ``BatchedLanguageModel/PromptScheduling/throughput``
///   (a GPU's default) a step is instead one call holding the decoding tokens and as many prompt
///   tokens as fit (``launchStepInOneCall(batch:in:)``); the guarantees below are then given up.
/// - Each step is one job of this actor, on the shared llama thread
///   (``LlamaConversation/sharedExecutor``), so other llama.cpp work interleaves between steps and
///   a single OpenMP team serves them all. Steps stop when nothing is left to do. With
///   ``Settings/yieldsWhileComputing`` a step is two jobs: one launches its call, the other takes
///   its results once other jobs (another context's step) have run.
/// - With ``Settings/reusesPromptPrefixes``, a new request starts from the longest cached start
///   it shares: its sequence's own cache, another free sequence's, a saved state, or a request in
///   the batch — requests that arrive together with one system prompt (or one prompt) evaluate it
///   once (``sequenceForRequest(_:wantsChain:)``).
/// - A cancelled request leaves at the next step and its KV entries are removed; a failed
///   `llama_decode` fails the requests it held (``OnDeviceModelError/decodeFailed(code:)``) and
///   clears their sequences, while the others go on.
///
/// Batching does not change answers: a request's logits are bit for bit those it gets alone, and
/// those ``SystemLanguageModel`` computes (so greedy text is the same whatever else runs), because
/// - each sequence has its own KV buffer (`kv_unified = false`): its cells stay in position order
///   and its attention sees only them. (With one shared buffer, cells freed by a finished request
///   are reused by the running ones out of order, which changes the rounding of attention.)
/// - ggml's CPU flash attention rounds differently in a pass holding 64 or more tokens of a
///   sequence (a tiled kernel) than in one holding fewer, but is otherwise independent of what else
///   the pass holds. So prompts of 64 tokens or more are decoded in calls of their own, in chunks
///   that follow ``SystemLanguageModel``'s passes (multiples of the batch size): each chunk of a
///   segment of 64 or more tokens has at least 64 (see ``nextPromptChunk(of:budget:)``). Shorter
///   prompts share one call.
///
/// The exception: once a sequence holds more than 256 tokens, a decode pass in which it is the
/// only sequence splits its attention across threads, which rounds slightly differently from a
/// pass shared with other sequences. A long greedy answer can then depend on the load.
///
/// With separate KV buffers llama.cpp evaluates one run of consecutive sequence ids per pass, so
/// new requests take the lowest free id and decode batches list sequences in id order; a gap left
/// by a finished request costs an extra pass per step until a new request fills it. A request
/// whose chosen id (with prompt prefix reuse: where its cache is) would split the ids in use goes
/// to a free id that keeps them consecutive instead, its cached start copied along
/// (``BatchStatistics/splitCalls`` counts the calls that were split anyway).
actor BatchScheduler: LlamaContextOwner {
  /// The shape of the context.
  struct Settings: Sendable, Hashable {
    /// Sequences (requests) decoded together.
    var maxSequences: Int
    /// Tokens each sequence may hold.
    var contextSizePerSequence: Int
    /// The most tokens in one `llama_decode` and one pass; at least `maxSequences`. Prompts are
    /// evaluated in segments of this size, like ``SystemLanguageModel``'s batch size.
    var batchSize: Int
    /// CPU threads for llama.cpp.
    var threads: Int
    /// Whether greedy requests without a grammar choose their tokens inside llama.cpp's graph
    /// (backend sampling), so their logits never leave the GPU. Grammar, tool and random-sampling
    /// requests keep the CPU path.
    var backendSampling: Bool = false
    /// Whether finished requests leave their keys and values for a later request with the same
    /// prompt prefix (see ``BatchedLanguageModel/Configuration/reusesPromptPrefixes``).
    var reusesPromptPrefixes: Bool = false
    /// How prompts share the steps (see ``BatchedLanguageModel/PromptScheduling``).
    var promptScheduling: BatchedLanguageModel.PromptScheduling = .reproducible
    /// Bytes of sequence states kept in memory when a cache has to make room (see
    /// ``PromptStateCache``); used with ``reusesPromptPrefixes``.
    var promptStateCacheBytes: Int = 0
    /// With ``BatchedLanguageModel/PromptScheduling/throughput``: whether a token's text is
    /// streamed while the next step computes (``streamDeferredText()``) rather than before that
    /// step is launched. Off only to measure what the overlap saves (`HYBRIDAI_TEXT_OVERLAP=0`).
    var overlapsText: Bool = true
    /// With ``backendSampling``: whether the chains of free sequences are detached once more of
    /// them than of busy ones have been attached for ``BatchScheduler/idleSamplerSteps`` steps in
    /// a row. Off only to measure what idle chains cost (`HYBRIDAI_DETACH_IDLE_SAMPLERS=0`).
    var detachesIdleSamplers: Bool = true
    /// Whether a step's randomly sampled rows are chosen side by side on several threads
    /// (``SampledRows``) rather than one by one. Off only to measure what that saves
    /// (`HYBRIDAI_SAMPLE_ROWS_TOGETHER=0`).
    var samplesRowsTogether: Bool = true
    /// With ``BatchedLanguageModel/PromptScheduling/throughput``: whether a step lets the llama
    /// thread run other jobs while its call computes, taking the results afterwards. Set when
    /// several schedulers (contexts) serve one model (``BatchedLanguageModel/Configuration/contexts``):
    /// on a GPU one context's host work — sampling, text, building and launching its next call —
    /// then overlaps the other's computation.
    var yieldsWhileComputing: Bool = false
    /// Speculative decoding (with ``BatchedLanguageModel/PromptScheduling/reproducible``), for
    /// steps in which at most ``BatchScheduler/speculatingSequences`` sequences decode.
    var speculation: SpeculativeDecoding = .off

    /// The most tokens in one `llama_decode` call: a batch, or with
    /// ``BatchedLanguageModel/PromptScheduling/throughput`` four (llama.cpp evaluates them in
    /// passes of ``batchSize``).
    var tokensPerCall: Int { promptScheduling == .throughput ? batchSize * 4 : batchSize }
  }

  /// llama.cpp's limit on sequences per context (`LLAMA_MAX_SEQ`).
  static let maximumSequences = 256

  /// A pass holding at least this many tokens of one sequence uses ggml's tiled flash-attention
  /// kernel (`GGML_FA_TILE_Q`), which rounds differently from the row-by-row one.
  static let tiledAttentionRows = 64

  /// Steps in a row with more backend sampler chains attached to free sequences than to busy ones
  /// after which those are detached. llama.cpp runs every attached chain in every pass (on a
  /// dummy row for a sequence not in the batch, which keeps the graph the same), so after a wide
  /// burst a narrow load would go on paying for all of them; a short dip (the turn between one
  /// round of requests and the next) keeps them, since attaching costs a graph reservation.
  static let idleSamplerSteps = 64

  /// The most sequences decoding in a step for it to check drafts. With a KV buffer per sequence,
  /// llama.cpp evaluates the same number of tokens of each sequence per pass, so drafts of
  /// different lengths split a step into several passes over the weights; where several
  /// sequences decode, their step already shares one pass, and speculation is left out.
  static let speculatingSequences = 1

  /// Prompt tokens evaluated per step while other sequences decode (a chunk may be up to 63
  /// tokens longer, see ``nextPromptChunk(of:budget:)``). 128 prompt tokens cost a 135M model on
  /// 2 cores about as much as three decode steps.
  static let promptTokensPerStepWhileDecoding = 128

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    LlamaConversation.sharedExecutor.asUnownedSerialExecutor()
  }

  nonisolated let weights: LlamaModelWeights
  nonisolated let settings: Settings
  let logger: Logger

  var context: OpaquePointer?
  private var batch: LlamaBatch?
  /// The draft model's context, when requests come with draft weights (speculative decoding).
  private var draftModel: DraftModelContext?
  /// Requests waiting for a free sequence, oldest first.
  private var waiting: [BatchRequest] = []
  /// Requests being served, oldest first (prompt chunks go to the oldest first).
  var active: [BatchedSequence] = []
  /// Sequence ids not in use, ascending.
  var freeSequenceIDs: [llama_seq_id]
  /// The tokens a free sequence still holds from its last request (``Settings/reusesPromptPrefixes``).
  var retainedTokens: [llama_seq_id: [llama_token]] = [:]
  /// When each sequence id was last released (a count of releases), to reuse the one unused longest.
  var lastReleased: [llama_seq_id: Int] = [:]
  private var releases = 0
  /// Caches that had to make room, kept in memory for their prompts' return.
  var promptStates: PromptStateCache
  /// Whether a task is running steps.
  private var isStepping = false
  /// Set by ``close()``: requests are refused and the context is gone.
  private var isClosed = false
  /// The greedy sampler chains attached to the context for backend sampling, by sequence id.
  var backendSamplers: [llama_seq_id: UnsafeMutablePointer<llama_sampler>] = [:]
  /// Chains detached since the last `llama_decode`, freed after the next one (which rebuilds the
  /// graph without them). A detached chain is never attached again: llama.cpp initialises a
  /// chain's backend state once (`llama_sampler_chain_backend_init` asserts on a second time).
  private var detachedSamplers: [UnsafeMutablePointer<llama_sampler>] = []
  /// Steps in a row with more chains attached to free sequences than to busy ones.
  private var stepsWithIdleSamplers = 0
  /// A result code the next step reports instead of calling `llama_decode` (tests only).
  private var injectedDecodeResult: Int32?
  /// When the last image or sound chunk was encoded and how long it took: while other sequences
  /// decode, the next chunk waits until they have had as long again (see ``evaluateMedia(in:)``).
  private var lastMediaChunk: (ended: ContinuousClock.Instant, took: Duration)?
  /// Which sequence's medium goes first when one chunk is encoded a step (turns round).
  private var mediaTurn = 0
  /// Steps, calls and time since the scheduler started, and at the start of the current burst of
  /// steps (logged when it ends).
  var statistics = BatchStatistics()
  private var statisticsAtBurstStart = BatchStatistics()
  /// The longest step of the current burst (a step that copied many caches, re-reserved the graph
  /// after samplers changed, or evaluated many prompts stands out), logged with the burst.
  private var longestStepInBurst = Duration.zero

  /// Requests decoding now and requests waiting for a sequence.
  var occupancy: BatchOccupancy { BatchOccupancy(active: active.count, waiting: waiting.count) }

  init(weights: LlamaModelWeights, settings: Settings, logger: Logger) {
    self.weights = weights
    self.settings = settings
    self.logger = logger
    freeSequenceIDs = (0..<settings.maxSequences).map { llama_seq_id($0) }
    promptStates = PromptStateCache(capacity: settings.reusesPromptPrefixes ? settings.promptStateCacheBytes : 0)
  }

  isolated deinit {
    LlamaContextRegistry.shared.unregister(ObjectIdentifier(self))
    if let context {
      LlamaRuntime.checkAlive("llama_free")
      llama_free(context)
    }
    freeBackendSamplers()
  }

  /// Frees the backend sampler chains (after the context that used them).
  private func freeBackendSamplers() {
    for chain in backendSamplers.values { llama_sampler_free(chain) }
    backendSamplers.removeAll()
    freeDetachedSamplers()
  }

  /// Frees the chains detached before the `llama_decode` that just ran.
  private func freeDetachedSamplers() {
    for chain in detachedSamplers { llama_sampler_free(chain) }
    detachedSamplers.removeAll()
  }

  /// ``close()``: as a ``LlamaContextOwner`` for ``OnDeviceRuntime/shutDown()``.
  func freeContext() { close() }

  // MARK: - Requests

  /// Queues a request and starts stepping if idle. The answer arrives on the request's continuation.
  func submit(_ request: BatchRequest) {
    guard !isClosed else { return request.continuation.finish(throwing: OnDeviceModelError.shuttingDown) }
    waiting.append(request)
    logger.debug("request queued", metadata: [
      "promptTokens": "\(request.promptTokens.count)", "active": "\(active.count)", "waiting": "\(waiting.count)",
    ])
    guard !isStepping else { return }
    isStepping = true
    Task { await runSteps() }
  }

  /// Ends every request, waiting or decoding, with ``OnDeviceModelError/shuttingDown`` (their
  /// streams get that error as their last event), refuses new ones, and frees the llama.cpp context
  /// now, on the llama thread, so nothing of it is left for the process's exit to tear down.
  func close() {
    guard !isClosed else { return }
    isClosed = true
    for sequence in active { finish(sequence, throwing: OnDeviceModelError.shuttingDown) }
    for request in waiting { request.continuation.finish(throwing: OnDeviceModelError.shuttingDown) }
    waiting.removeAll()
    if let context {
      llama_synchronize(context)   // a call launched before a step yielded may still compute
      llama_free(context)
      self.context = nil
    }
    draftModel?.release()
    draftModel = nil
    batch = nil
    retainedTokens.removeAll()
    promptStates = PromptStateCache(capacity: promptStates.capacity)
    freeBackendSamplers()
    logger.debug("batch scheduler closed: requests ended, context freed")
  }

  /// Makes the next `llama_decode` fail as if it had returned `code`. For tests.
  func injectDecodeFailure(code: Int32) {
    injectedDecodeResult = code
  }

  /// The most first tokens of `prompt` this context holds already — in a free sequence's cache, a
  /// saved state, or a request in the batch — with ``Settings/reusesPromptPrefixes``; else 0.
  /// Where several contexts serve a model, a request goes to the one that holds most of its
  /// start among the least loaded (a conversation's next turn to its cache).
  func cachedStartLength(of prompt: [llama_token]) -> Int {
    guard settings.reusesPromptPrefixes, !isClosed else { return 0 }
    var longest = promptStates.bestMatch(for: prompt) { _, _ in true }?.shared ?? 0
    for tokens in retainedTokens.values { longest = max(longest, tokens.reusablePrefixLength(for: prompt)) }
    for sequence in active { longest = max(longest, sequence.request.promptTokens.reusablePrefixLength(for: prompt)) }
    return longest
  }

  /// Sequence ids whose tokens llama.cpp now picks in its graph, for tests and diagnostics.
  var backendSampledSequences: Set<llama_seq_id> { Set(backendSamplers.keys) }

  /// Whether the llama.cpp context exists (made by the first request), for tests and diagnostics.
  var hasContext: Bool { context != nil }

  /// Requests being served and waiting, for tests and diagnostics.
  var load: (active: Int, waiting: Int) { (active.count, waiting.count) }

  // MARK: - Stepping

  private func runSteps() async {
    countReusedGraphs()
    statisticsAtBurstStart = statistics
    longestStepInBurst = .zero
    while true {
      var started = ContinuousClock.now
      var took = Duration.zero
      let more: Bool
      var yielded = false
      switch step() {
      case .done(let continues):
        more = continues
      case .computing(let launched):
        took = ContinuousClock.now - started
        // Another context's step (``Settings/yieldsWhileComputing``) or a new request runs while
        // this call computes.
        await Task.yield()
        yielded = true
        started = ContinuousClock.now
        more = finishStep(launched)
      }
      took += ContinuousClock.now - started
      statistics.steps += 1
      statistics.stepTime += took
      longestStepInBurst = max(longestStepInBurst, took)
      guard more else { break }
      // Let other jobs of the llama thread (and new submissions) run between steps; a step that
      // yielded while it computed has, and launches the next call at once.
      if !yielded { await Task.yield() }
    }
    isStepping = false
    countReusedGraphs()
    var summary = statistics.since(statisticsAtBurstStart).summary
    summary["longestStepMs"] = "\(longestStepInBurst.milliseconds)"
    logger.debug("batch idle", metadata: summary.mapValues { .string($0) })
  }

  /// Takes llama.cpp's own count of reused graphs into ``statistics`` (at a burst's ends, not
  /// every step).
  private func countReusedGraphs() {
    if let context { statistics.graphsReused = Int(llama_perf_context(context).n_reused) }
  }

  /// What ``step()`` left: nothing (and whether there is more to do), or a call still computing
  /// whose results ``finishStep(_:)`` takes (with ``Settings/yieldsWhileComputing``).
  private enum StepOutcome {
    case done(moreToDo: Bool)
    case computing(LaunchedStep)
  }

  /// A throughput step's call, launched, with what its results are for.
  private struct LaunchedStep {
    /// The sequences in the call, in id order.
    let participants: [BatchedSequence]
    /// The prompt tokens of each sequence in the call that evaluates its prompt.
    let chunks: [llama_seq_id: Range<Int>]
    /// The sequences whose next token the call's logits give, and where.
    let outputs: [(sequence: BatchedSequence, logitsIndex: Int32)]
  }

  /// Drops cancelled requests, admits waiting ones, decodes one token of every decoding sequence,
  /// then evaluates prompt chunks.
  private func step() -> StepOutcome {
    guard !isClosed else { return .done(moreToDo: false) }
    dropCancelledRequests()
    admitWaitingRequests()
    copyAwaitedPrefixes()
    guard let context, let batch, !active.isEmpty else { return .done(moreToDo: !waiting.isEmpty) }
    detachIdleSamplers(in: context)
    if settings.promptScheduling == .throughput {
      evaluateMedia(in: context)
      guard let launched = launchStepInOneCall(batch: batch, in: context) else {
        return .done(moreToDo: !active.isEmpty || !waiting.isEmpty)
      }
      if settings.yieldsWhileComputing { return .computing(launched) }
      return .done(moreToDo: finishStep(launched))
    }

    // 1. One pass for every decoding sequence, in id order (llama.cpp evaluates a run of
    //    consecutive ids in one pass).
    let decoding = active.filter { $0.nextToken != nil }.sorted { $0.id < $1.id }
    if !decoding.isEmpty {
      batch.removeAll()
      let drafts = drafts(for: decoding, room: batch.capacity - decoding.count)
      let indices = decoding.map { sequence in
        let index = batch.append(sequence.nextToken ?? 0, position: sequence.position, sequence: sequence.id, wantsLogits: true)
        for (offset, token) in (drafts[sequence.id] ?? []).enumerated() {
          batch.append(token, position: sequence.position + 1 + offset, sequence: sequence.id, wantsLogits: true)
        }
        return index
      }
      if decode(batch, of: decoding, in: context) {
        statistics.answerTokens += decoding.count
        let choices = cpuChoices(for: zip(decoding, indices).map { (sequence: $0, logitsIndex: $1) }, in: context)
        for ((sequence, index), choice) in zip(zip(decoding, indices), choices) {
          takeEvaluatedToken(of: sequence)
          advance(sequence, logitsAt: index, in: context, choice: choice)
          if let draft = drafts[sequence.id] { check(draft, of: sequence, rowsFrom: index + 1, in: context) }
        }
      }
    }

    // 2. Prompts within the step's budget: images and sounds that come next, short prompts
    //    together, then chunks of long ones, oldest first.
    var budget = decoding.isEmpty ? settings.batchSize : Self.promptTokensPerStepWhileDecoding
    evaluateMedia(in: context)
    evaluateShortPrompts(budget: &budget, batch: batch, in: context)
    evaluateLongPromptChunks(budget: &budget, batch: batch, in: context)
    return .done(moreToDo: !active.isEmpty || !waiting.isEmpty)
  }

  /// A step with ``BatchedLanguageModel/PromptScheduling/throughput``: one call holding every
  /// decoding sequence's next token and prompt tokens up to the call's capacity (oldest prompts
  /// first, a prompt that does not fit goes in part), listed in sequence-id order, so that
  /// llama.cpp's split for separate KV buffers (consecutive ids, the same number of tokens each)
  /// evaluates them in as few passes as it can. Launches the call and streams the text of the
  /// step before while it computes; ``finishStep(_:)`` takes its results. `nil` when there was
  /// nothing to evaluate or the call failed.
  private func launchStepInOneCall(batch: LlamaBatch, in context: OpaquePointer) -> LaunchedStep? {
    var room = batch.capacity - active.count(where: { $0.nextToken != nil })
    var chunks: [llama_seq_id: Range<Int>] = [:]
    for sequence in active where sequence.evaluatesPromptNow && sequence.nextMedium == nil {
      guard room > 0 else { break }
      let end = sequence.textEnd(before: min(sequence.request.promptTokens.count, sequence.position + room))
      chunks[sequence.id] = sequence.position..<end
      room -= end - sequence.position
    }
    let participants = active.filter { $0.nextToken != nil || chunks[$0.id] != nil }.sorted { $0.id < $1.id }
    guard !participants.isEmpty else { return nil }
    batch.removeAll()
    var outputs: [(sequence: BatchedSequence, logitsIndex: Int32)] = []
    for sequence in participants {
      if let token = sequence.nextToken {
        outputs.append((sequence, batch.append(token, position: sequence.position, sequence: sequence.id, wantsLogits: true)))
      } else if let chunk = chunks[sequence.id] {
        let prompt = sequence.request.promptTokens
        for index in chunk {
          let logitsIndex = batch.append(prompt[index], position: index, sequence: sequence.id, wantsLogits: index == prompt.count - 1)
          if index == prompt.count - 1 { outputs.append((sequence, logitsIndex)) }
        }
      }
    }
    guard launch(batch, of: participants, in: context) else { return nil }
    streamDeferredText()
    return LaunchedStep(participants: participants, chunks: chunks, outputs: outputs)
  }

  /// Waits for a launched step's results and takes them: positions, the next tokens, the requests
  /// that end. Returns whether there is more to do. Nothing is taken when ``close()`` ran
  /// meanwhile (it ended the requests).
  private func finishStep(_ launched: LaunchedStep) -> Bool {
    guard !isClosed, let context else { return false }
    waitForResults(of: context)
    let now = ContinuousClock.now
    for sequence in launched.participants {
      if let token = sequence.nextToken {
        sequence.position += 1
        if settings.reusesPromptPrefixes { sequence.evaluatedAnswer.append(token) }
        sequence.nextToken = nil
        statistics.answerTokens += 1
      } else if let chunk = launched.chunks[sequence.id] {
        sequence.position = chunk.upperBound
        if !sequence.isEvaluatingPrompt { sequence.promptEvaluated = now }
      }
    }
    let choices = cpuChoices(for: launched.outputs, in: context)
    for ((sequence, logitsIndex), choice) in zip(launched.outputs, choices) {
      // Its last token's text met a stop sequence: the token decoded in this step is not used.
      if sequence.text.metStopSequence { complete(sequence, .stop); continue }
      advance(sequence, logitsAt: logitsIndex, in: context, deferringText: settings.overlapsText, choice: choice)
    }
    return !active.isEmpty || !waiting.isEmpty
  }

  /// The token of each output that the CPU picks without a grammar, found for many at once
  /// (`nil` for the others, which `advance` picks one by one): greedy rows by one scan of the rows
  /// on several threads (``LargestLogit/indices(ofRows:rowLength:threads:)``), randomly sampled
  /// rows side by side, each by its own request's chain (``SampledRows``). The same tokens
  /// `advance` would pick one by one; a sampled one is accepted there.
  private func cpuChoices(for outputs: [(sequence: BatchedSequence, logitsIndex: Int32)],
                          in context: OpaquePointer) -> [llama_token?] {
    var choices = [llama_token?](repeating: nil, count: outputs.count)
    guard outputs.count >= SampledRows.parallelRows, weights.vocabularySize > 0 else { return choices }
    let onCPU = outputs.indices.filter { !outputs[$0].sequence.usesBackendSampling }
    let greedy = onCPU.filter { outputs[$0].sequence.selector.choosesLargestLogit }
    // Fewer rows: each is scanned in `advance`, as before (no logits fetched twice).
    if greedy.count >= LargestLogit.parallelRows {
      let (rows, slots) = logitsRows(of: greedy, in: outputs, context: context)
      let indices = LargestLogit.indices(ofRows: rows, rowLength: weights.vocabularySize, threads: settings.threads)
      for (slot, index) in zip(slots, indices) { choices[slot] = llama_token(index) }
      statistics.rowsScannedTogether += rows.count
    }
    let sampled = onCPU.filter {
      !outputs[$0].sequence.selector.choosesLargestLogit && outputs[$0].sequence.selector.unconstrainedSampler != nil
    }
    if settings.samplesRowsTogether, sampled.count >= SampledRows.parallelRows, settings.threads > 1 {
      let (rows, slots) = logitsRows(of: sampled, in: outputs, context: context)
      let samplers = slots.compactMap { outputs[$0].sequence.selector.unconstrainedSampler }
      let tokens = SampledRows.choices(ofRows: rows, samplers: samplers, threads: settings.threads)
      for (slot, token) in zip(slots, tokens) { choices[slot] = token }
      statistics.rowsSampledTogether += rows.count
    }
    return choices
  }

  /// The logits rows of `outputs[slot]` for each slot (those llama.cpp has), and their slots.
  private func logitsRows(of slots: [Int], in outputs: [(sequence: BatchedSequence, logitsIndex: Int32)],
                          context: OpaquePointer) -> (rows: [UnsafePointer<Float>], slots: [Int]) {
    var rows: [UnsafePointer<Float>] = [], found: [Int] = []
    for slot in slots {
      // Read on this thread: llama_get_logits_ith synchronises the context first.
      guard let row = llama_get_logits_ith(context, outputs[slot].logitsIndex) else { continue }
      rows.append(UnsafePointer(row))
      found.append(slot)
    }
    return (rows, found)
  }

  /// Prompts shorter than ``tiledAttentionRows`` tokens, whole and together in one call: every
  /// pass then holds fewer than that many tokens of each, and none of them holds 256 tokens, so
  /// each token meets the row-by-row attention kernel whatever else the pass holds.
  private func evaluateShortPrompts(budget: inout Int, batch: LlamaBatch, in context: OpaquePointer) {
    batch.removeAll()
    var included: [(sequence: BatchedSequence, logitsIndex: Int32)] = []
    for sequence in active where sequence.position == 0 && sequence.awaitedPrefix == nil && sequence.request.prompt.media.isEmpty {
      let prompt = sequence.request.promptTokens
      guard budget > 0, prompt.count < Self.tiledAttentionRows, prompt.count <= batch.remaining else { continue }
      var logitsIndex: Int32 = 0
      for (index, token) in prompt.enumerated() {
        logitsIndex = batch.append(token, position: index, sequence: sequence.id, wantsLogits: index == prompt.count - 1)
      }
      included.append((sequence, logitsIndex))
      budget -= prompt.count
    }
    guard !included.isEmpty, decode(batch, of: included.map(\.sequence), in: context) else { return }
    let now = ContinuousClock.now
    for (sequence, logitsIndex) in included {
      sequence.position = sequence.request.promptTokens.count
      sequence.promptEvaluated = now
      advance(sequence, logitsAt: logitsIndex, in: context)
    }
  }

  /// The next chunk of other prompts, each in a call of its own (see ``nextPromptChunk(of:budget:)``).
  private func evaluateLongPromptChunks(budget: inout Int, batch: LlamaBatch, in context: OpaquePointer) {
    for sequence in active where sequence.evaluatesPromptNow && sequence.nextMedium == nil {
      guard budget > 0 else { break }
      let prompt = sequence.request.promptTokens
      let chunk = nextPromptChunk(of: sequence, budget: budget)
      batch.removeAll()
      for index in chunk {
        batch.append(prompt[index], position: index, sequence: sequence.id, wantsLogits: index == prompt.count - 1)
      }
      guard decode(batch, of: [sequence], in: context) else { continue }
      sequence.position = chunk.upperBound
      budget -= chunk.count
      if !sequence.isEvaluatingPrompt {
        sequence.promptEvaluated = .now
        advance(sequence, logitsAt: Int32(batch.count - 1), in: context)
      }
    }
  }

  /// The prompt tokens of `sequence` to evaluate next. The prompt is cut into segments of
  /// ``Settings/batchSize`` tokens, as ``SystemLanguageModel`` evaluates it; a segment of
  /// ``tiledAttentionRows`` or more tokens is cut into chunks of at least that many (about `budget`),
  /// a shorter one is evaluated whole. Every token thus meets the same attention kernel as there.
  func nextPromptChunk(of sequence: BatchedSequence, budget: Int) -> Range<Int> {
    let start = sequence.position
    let segmentEnd = min(sequence.request.promptTokens.count, (start / settings.batchSize + 1) * settings.batchSize)
    let rest = segmentEnd - start
    var size = min(rest, max(budget, Self.tiledAttentionRows))
    if rest - size < Self.tiledAttentionRows { size = rest }
    return start..<sequence.textEnd(before: start + size)
  }

  /// Evaluates the image or sound chunk (an image slice, a stretch of sound) that sequences'
  /// prompts reach next, through the projector (encoded, then its embeddings decoded into the
  /// sequence's cache). A sequence whose cache ends inside a medium (a prefix reused up to there)
  /// drops that part and takes the medium whole.
  ///
  /// With no sequence decoding, every such sequence gets its next chunk. While some decode, one
  /// chunk at most, the sequences taking turns, and only once the decoding ones have had as long as
  /// the last chunk took: a running answer pauses for one chunk's encode at a time and keeps at
  /// least half of the time, and an answer that started early is not held to one token per round
  /// of every other request's encodes.
  private func evaluateMedia(in context: OpaquePointer) {
    let candidates = active.filter(\.evaluatesPromptNow)
    for sequence in candidates {
      if let split = sequence.request.prompt.span(containing: sequence.position), split.start < sequence.position {
        _ = llama_memory_seq_rm(llama_get_memory(context), sequence.id, Int32(split.start), -1)
        sequence.position = split.start
        sequence.reusedPromptTokens = min(sequence.reusedPromptTokens, split.start)
      }
    }
    var waitingForMedia = candidates.filter { $0.nextMedium != nil }
    guard !waitingForMedia.isEmpty else { return }
    if active.contains(where: { $0.nextToken != nil }) {
      if let last = lastMediaChunk, ContinuousClock.now - last.ended < last.took { return }
      mediaTurn += 1
      waitingForMedia = [waitingForMedia[mediaTurn % waitingForMedia.count]]
    }
    for sequence in waitingForMedia {
      guard let span = sequence.nextMedium else { continue }
      let prompt = sequence.request.prompt
      guard let projector = prompt.projector, let chunk = prompt.chunk(of: span) else {
        finish(sequence, throwing: OnDeviceModelError.tokenizationFailed)
        continue
      }
      let started = ContinuousClock.now
      let result = projector.evaluate(chunk, in: context, at: span.start, sequence: sequence.id, batchSize: settings.batchSize,
                                      logitsLast: false)
      let ended = ContinuousClock.now
      statistics.mediaEncodingTime += ended - started
      lastMediaChunk = (ended, ended - started)
      guard result == 0 else {
        logger.error("a medium could not be evaluated", metadata: ["seq": "\(sequence.id)", "code": "\(result)"])
        finish(sequence, throwing: OnDeviceModelError.decodeFailed(code: result))
        continue
      }
      sequence.position = span.end
    }
  }

  /// ``launch(_:of:in:)`` and ``waitForResults(of:)``: the results are ready when it returns `true`.
  private func decode(_ batch: LlamaBatch, of sequences: [BatchedSequence], in context: OpaquePointer) -> Bool {
    guard launch(batch, of: sequences, in: context) else { return false }
    waitForResults(of: context)
    return true
  }

  /// Waits until the last `llama_decode`'s work is done (a GPU backend returns before it is).
  private func waitForResults(of context: OpaquePointer) {
    let started = ContinuousClock.now
    llama_synchronize(context)
    statistics.waitTime += .now - started
  }

  /// Calls `llama_decode`; on failure fails `sequences` (the ones the batch holds) and returns
  /// `false`. On a GPU the work may still be running when it returns (see ``waitForResults(of:)``).
  private func launch(_ batch: LlamaBatch, of sequences: [BatchedSequence], in context: OpaquePointer) -> Bool {
    let result: Int32
    let started = ContinuousClock.now
    if let injected = injectedDecodeResult {
      injectedDecodeResult = nil
      result = injected
    } else {
      LlamaRuntime.checkAlive("llama_decode")
      result = llama_decode(context, batch.raw)
      freeDetachedSamplers()
    }
    statistics.decodeCalls += 1
    if sequences.count > 1, Self.consecutiveRuns(in: sequences.map(\.id)) > 1 { statistics.splitCalls += 1 }
    statistics.decodedTokens += batch.count
    statistics.launchTime += .now - started
    guard result == 0 else {
      logger.error("llama_decode failed; failing the requests in the batch", metadata: [
        "code": "\(result)", "sequences": "\(sequences.map(\.id))", "batchTokens": "\(batch.count)",
      ])
      for sequence in sequences { finish(sequence, throwing: OnDeviceModelError.decodeFailed(code: result)) }
      return false
    }
    logger.trace("decoded a batch", metadata: ["batchTokens": "\(batch.count)", "sequences": "\(sequences.count)"])
    return true
  }

  /// Ends requests whose consumer went away, active or waiting.
  private func dropCancelledRequests() {
    for sequence in active where sequence.request.cancellation.isCancelled {
      finish(sequence, throwing: CancellationError())
    }
    var kept: [BatchRequest] = []
    for request in waiting {
      if request.cancellation.isCancelled {
        request.continuation.finish(throwing: CancellationError())
      } else {
        kept.append(request)
      }
    }
    waiting = kept
  }

  /// Moves waiting requests into free sequences, creating the context on first use.
  private func admitWaitingRequests() {
    while !waiting.isEmpty, !freeSequenceIDs.isEmpty {
      let request = waiting.removeFirst()
      let promptTokens = request.promptTokens.count
      guard promptTokens > 0 else {
        request.continuation.finish(throwing: OnDeviceModelError.tokenizationFailed)
        continue
      }
      guard promptTokens < settings.contextSizePerSequence else {
        request.continuation.finish(throwing: GenerationError.exceededContextWindowSize(
          promptTokens: promptTokens, contextSize: settings.contextSizePerSequence))
        continue
      }
      let sequence: BatchedSequence
      let wantsChain = wantsBackendSampling(request)
      let chosen = suitingSampler(sequenceForRequest(request.promptTokens, wantsChain: wantsChain),
                                  of: request.promptTokens, wantsChain: wantsChain)
      let (id, reused, start) = keepingIDsConsecutive(chosen, wantsChain: wantsChain)
      do {
        try makeContextIfNeeded()
        let speculation = settings.promptScheduling == .reproducible ? settings.speculation : .off
        sequence = try BatchedSequence(id: id, request: request, weights: weights, speculation: speculation,
                                       draftModel: speculation.usesDraftModel ? draftModel(for: request) : nil)
      } catch {
        request.continuation.finish(throwing: error)
        continue
      }
      freeSequenceIDs.removeAll { $0 == id }
      sequence.position = switch start {
      case .own: keepCachedPrefix(of: id, length: reused)
      case .copy(let source): copyCachedPrefix(from: source, to: id, length: reused)
      case .restore(let index): restoreCachedPrefix(promptStates.take(at: index), into: id, length: reused)
      case .awaiting(let source): awaitPrefix(of: sequence, from: source, length: reused)
      }
      sequence.reusedPromptTokens = sequence.position
      if let context { routeSampling(of: sequence, in: context) }
      active.append(sequence)
      logger.debug("sequence started", metadata: [
        "seq": "\(id)", "promptTokens": "\(promptTokens)", "cachedTokens": "\(sequence.position)",
        "awaitsStartOf": "\(sequence.awaitedPrefix.map { "\($0.source.id)" } ?? "-")",
        "active": "\(active.count)", "waiting": "\(waiting.count)",
      ])
    }
  }

  /// Samples a sequence's next token from its logits in the batch just decoded, streams its text,
  /// and either schedules the token for the next step or finishes the request.
  ///
  /// `deferringText`: a token that is neither the first nor the last of the answer only goes to
  /// the next step; its text is streamed while that step computes (``streamDeferredText()``).
  /// `choice`: the token already picked for it (``cpuChoices(for:in:)``), accepted here.
  private func advance(_ sequence: BatchedSequence, logitsAt index: Int32, in context: OpaquePointer,
                       deferringText: Bool = false, choice: llama_token? = nil) {
    if sequence.request.cancellation.isCancelled { return finish(sequence, throwing: CancellationError()) }
    guard sequence.generated < sequence.limit else { return complete(sequence, .maxTokens) }
    guard sequence.position < settings.contextSizePerSequence else { return complete(sequence, .contextWindowFull) }
    let token: llama_token
    if sequence.usesBackendSampling {
      token = llama_get_sampled_token_ith(context, index)
      guard token != LLAMA_TOKEN_NULL else { return finish(sequence, throwing: OnDeviceModelError.decodeFailed(code: -100)) }
    } else {
      if let choice {
        token = choice
        sequence.selector.accept(choice)
      } else {
        token = sequence.selector.next(context, at: index)
      }
    }
    if sequence.firstToken == nil { sequence.firstToken = .now }
    if weights.isEndOfGeneration(token) { return complete(sequence, .stop) }
    sequence.generated += 1
    sequence.speculation?.append(token)
    if sequence.logProbabilities != nil, !sequence.usesBackendSampling, let logits = llama_get_logits_ith(context, index) {
      sequence.logProbabilities?.record(token, from: logits, weights: weights)
    }
    if deferringText, sequence.generated > 1, sequence.generated < sequence.limit {
      sequence.tokenAwaitingText = token
      sequence.nextToken = token
      return
    }
    if streamText(of: token, for: sequence) { return complete(sequence, .stop) }
    guard sequence.generated < sequence.limit else { return complete(sequence, .maxTokens) }
    sequence.nextToken = token
  }

  /// The sequence's next token was evaluated: it is in the cache now.
  private func takeEvaluatedToken(of sequence: BatchedSequence) {
    sequence.position += 1
    if settings.reusesPromptPrefixes, let token = sequence.nextToken { sequence.evaluatedAnswer.append(token) }
    sequence.nextToken = nil
  }

  /// The drafts to check in this step, by sequence: none unless speculation is on and at most
  /// ``speculatingSequences`` sequences decode; each fits its request's token limit, its context
  /// and, all together, `room` tokens of the batch.
  private func drafts(for decoding: [BatchedSequence], room: Int) -> [llama_seq_id: [llama_token]] {
    guard settings.speculation.isEnabled, decoding.count <= Self.speculatingSequences else { return [:] }
    var room = room
    var drafts: [llama_seq_id: [llama_token]] = [:]
    for sequence in decoding where !sequence.usesBackendSampling && sequence.speculation != nil {
      let fits = min(room, sequence.limit - sequence.generated - 1, settings.contextSizePerSequence - sequence.position - 2)
      guard let draft = sequence.speculation?.draft(room: fits), !draft.isEmpty else { continue }
      drafts[sequence.id] = draft
      room -= draft.count
      statistics.draftTokens += draft.count
    }
    return drafts
  }

  /// Goes through a draft evaluated after the sequence's token (its logits from row `row`): each
  /// drafted token the model chooses too is in the cache already, and the next choice comes from
  /// its row; the first it does not choose ends the draft, whose rest leaves the cache.
  private func check(_ draft: [llama_token], of sequence: BatchedSequence, rowsFrom row: Int32, in context: OpaquePointer) {
    var row = row
    for drafted in draft {
      // A finished request has no next token; a different choice is the next token to decode.
      guard sequence.nextToken == drafted else { break }
      takeEvaluatedToken(of: sequence)
      sequence.speculation?.accept()
      statistics.acceptedDraftTokens += 1
      statistics.answerTokens += 1
      advance(sequence, logitsAt: row, in: context)
      row += 1
    }
    sequence.speculation?.closeDraft()
    // The drafted tokens after the last one taken leave the cache (a released sequence's cache is
    // gone or holds exactly its tokens afterwards).
    llama_memory_seq_rm(llama_get_memory(context), sequence.id, Int32(sequence.position), -1)
  }

  /// Hands a token's text to the request's stream (coalesced, see ``GeneratedTextEmitter``);
  /// returns whether it met a stop sequence.
  private func streamText(of token: llama_token, for sequence: BatchedSequence) -> Bool {
    let continuation = sequence.request.continuation
    let metStop = sequence.text.append(weights.bytes(of: token), emit: { sequence.output.route($0, to: { continuation.yield($0) }) })
    if let entries = sequence.logProbabilities?.takeDelivered(textBytes: sequence.text.emittedByteCount), !entries.isEmpty {
      continuation.yield(.logProbabilities(entries))
    }
    return metStop
  }

  /// Streams the text of the tokens ``advance(_:logitsAt:in:deferringText:)`` left for this step,
  /// while its decode runs (on a GPU, `llama_decode` returns before the work is done). A stop
  /// sequence met there ends the request once the step's results are in: nothing may touch the
  /// KV cache before then.
  private func streamDeferredText() {
    for sequence in active {
      guard let token = sequence.tokenAwaitingText else { continue }
      sequence.tokenAwaitingText = nil
      _ = streamText(of: token, for: sequence)
    }
  }

  /// Attaches a new greedy chain to the sequence's id when its request can be sampled in the
  /// graph, detaches the one there otherwise. Changing the attached set makes llama.cpp re-reserve
  /// its graph, so a chain stays attached from one request to the next while they qualify.
  private func routeSampling(of sequence: BatchedSequence, in context: OpaquePointer) {
    let wanted = wantsBackendSampling(sequence.request)
    let attached = backendSamplers[sequence.id] != nil
    if wanted && !attached {
      let chain = llama_sampler_chain_init(llama_sampler_chain_default_params())!
      llama_sampler_chain_add(chain, llama_sampler_init_greedy())
      if llama_set_sampler(context, sequence.id, chain) {
        backendSamplers[sequence.id] = chain
        statistics.samplersAttached += 1
      } else {
        llama_sampler_free(chain)   // refused before llama.cpp kept or initialised it
        logger.warning("backend sampling refused; sampling on the CPU", metadata: ["seq": "\(sequence.id)"])
      }
    } else if !wanted, attached {
      detachSampler(of: sequence.id, in: context)
    }
    sequence.usesBackendSampling = backendSamplers[sequence.id] != nil
  }

  /// Detaches the chains of free sequences once more of them than of busy ones have been attached
  /// for ``idleSamplerSteps`` steps in a row (see there).
  private func detachIdleSamplers(in context: OpaquePointer) {
    guard settings.detachesIdleSamplers, !backendSamplers.isEmpty else { return }
    // Every busy sequence's chain is among the attached ones (see routeSampling).
    let busy = active.count(where: \.usesBackendSampling)
    guard backendSamplers.count - busy > busy else { return stepsWithIdleSamplers = 0 }
    stepsWithIdleSamplers += 1
    guard stepsWithIdleSamplers >= Self.idleSamplerSteps else { return }
    stepsWithIdleSamplers = 0
    let inUse = Set(active.lazy.filter(\.usesBackendSampling).map(\.id))
    let idle = backendSamplers.keys.filter { !inUse.contains($0) }
    for id in idle { detachSampler(of: id, in: context) }
    statistics.samplersDetached += idle.count
    logger.debug("idle backend samplers detached", metadata: ["detached": "\(idle.count)", "attached": "\(busy)"])
  }

  /// Detaches the chain of sequence `id`; it is freed after the next `llama_decode`.
  private func detachSampler(of id: llama_seq_id, in context: OpaquePointer) {
    guard let chain = backendSamplers.removeValue(forKey: id) else { return }
    _ = llama_set_sampler(context, id, nil)
    detachedSamplers.append(chain)
  }

  // MARK: - Finishing

  /// Ends a request normally: the rest of its text, then its ``RawResponse``.
  private func complete(_ sequence: BatchedSequence, _ finishReason: FinishReason) {
    let request = sequence.request
    sequence.text.finish { sequence.output.route($0, to: { request.continuation.yield($0) }) }
    do {
      try sequence.output.finish(to: { request.continuation.yield($0) })
    } catch {
      return finish(sequence, throwing: error)
    }
    if let rest = sequence.logProbabilities?.takeRest(metStopSequence: sequence.text.metStopSequence,
                                                      textBytes: sequence.text.emittedByteCount), !rest.isEmpty {
      request.continuation.yield(.logProbabilities(rest))
    }
    let finished = ContinuousClock.now
    var response = RawResponse(
      modelVersion: request.modelVersion,
      source: .onDevice,
      usage: request.prompt.usage(cached: sequence.reusedPromptTokens, outputTokens: sequence.generated,
                                  draftTokens: sequence.speculation?.draftedTokens ?? 0,
                                  acceptedDraftTokens: sequence.speculation?.acceptedTokens ?? 0),
      finishReason: finishReason,
      timings: GenerationTimings(
        promptEvaluation: (sequence.promptEvaluated ?? finished) - sequence.admitted,
        timeToFirstToken: sequence.firstToken.map { $0 - request.requestStarted },
        generation: sequence.firstToken.map { finished - $0 } ?? .zero,
        evaluatedPromptTokens: request.promptTokens.count - sequence.reusedPromptTokens,
        generatedTokens: sequence.generated))
    response.logProbabilities = sequence.logProbabilities?.handedOn
    request.continuation.yield(.completed(response))
    request.continuation.finish()
    release(sequence, keepingCache: settings.reusesPromptPrefixes)
    logger.debug("sequence finished", metadata: [
      "seq": "\(sequence.id)", "promptTokens": "\(request.promptTokens.count)",
      "evaluatedPromptTokens": "\(request.promptTokens.count - sequence.reusedPromptTokens)",
      "outputTokens": "\(sequence.generated)", "finishReason": "\(finishReason)",
      // Where its time to first token went: preparing and waiting for a sequence, then evaluating the prompt.
      "beforeAdmissionMs": "\((sequence.admitted - request.requestStarted).milliseconds)",
      "promptMs": "\(((sequence.promptEvaluated ?? finished) - sequence.admitted).milliseconds)",
      "timeToFirstTokenMs": "\(sequence.firstToken.map { ($0 - request.requestStarted).milliseconds } ?? -1)",
    ])
  }

  /// Ends a request with an error (cancellation, a failed decode).
  private func finish(_ sequence: BatchedSequence, throwing error: any Error) {
    sequence.request.continuation.finish(throwing: error)
    release(sequence)
    logger.debug("sequence ended", metadata: [
      "seq": "\(sequence.id)", "outputTokens": "\(sequence.generated)", "error": "\(error)",
    ])
  }

  /// Frees the sequence's id and removes its tokens from the KV cache, or, `keepingCache`, leaves
  /// them there for a later request with the same prefix (only after a normal end: a failed
  /// decode leaves the cache in an unknown state).
  private func release(_ sequence: BatchedSequence, keepingCache: Bool = false) {
    if keepingCache, context != nil {
      retainedTokens[sequence.id] = sequence.cachedTokens
    } else if let context {
      llama_memory_seq_rm(llama_get_memory(context), sequence.id, -1, -1)
    }
    active.removeAll { $0 === sequence }
    releases += 1
    lastReleased[sequence.id] = releases
    freeSequenceIDs.insert(sequence.id, at: freeSequenceIDs.firstIndex { $0 > sequence.id } ?? freeSequenceIDs.endIndex)
  }

  // MARK: - Context

  /// The draft model's context for `request`'s draft weights (made on first use, one sequence per
  /// sequence of this context); `nil` when the request has none.
  private func draftModel(for request: BatchRequest) -> DraftModelContext? {
    guard let draftWeights = request.draftWeights else { return nil }
    if let draftModel, draftModel.weights === draftWeights { return draftModel }
    let made = DraftModelContext(weights: draftWeights, targetVocabularySize: weights.vocabularySize,
                                 minimumProbability: settings.speculation.minimumDraftProbability,
                                 contextSizePerSequence: settings.contextSizePerSequence, sequences: settings.maxSequences,
                                 batchSize: settings.batchSize, threads: settings.threads, logger: logger)
    draftModel = made
    return made
  }

  private func makeContextIfNeeded() throws(OnDeviceModelError) {
    guard context == nil else { return }
    let cells = settings.maxSequences.multipliedReportingOverflow(by: settings.contextSizePerSequence).partialValue
    var params = llama_context_default_params()
    params.n_ctx = UInt32(clamping: cells)
    params.n_batch = UInt32(settings.tokensPerCall)
    params.n_ubatch = UInt32(settings.batchSize)   // a prompt chunk is one pass (see nextPromptChunk)
    params.n_seq_max = UInt32(settings.maxSequences)
    params.kv_unified = false   // one KV buffer per sequence (see the type's documentation)
    params.n_threads = Int32(settings.threads)
    params.n_threads_batch = Int32(settings.threads)
    params.no_perf = true
    guard let made = llama_init_from_model(weights.pointer, params) else {
      throw .contextCreationFailed(contextSize: cells)
    }
    context = made
    LlamaContextRegistry.shared.register(self)
    batch = LlamaBatch(capacity: settings.tokensPerCall)
    logger.debug("created batched llama context", metadata: [
      "sequences": "\(settings.maxSequences)", "contextSizePerSequence": "\(settings.contextSizePerSequence)",
      "batchSize": "\(settings.batchSize)", "threads": "\(settings.threads)",
    ])
  }
}
