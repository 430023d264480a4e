import CLlama
import HybridAI
import Logging

/// Continuous batching on one llama.cpp context: every active request is a llama.cpp sequence,
/// and each step evaluates one token of every decoding sequence plus prompt chunks of newly
/// admitted ones in a single `llama_decode`, so concurrent requests share each pass over the weights.
///
/// - Requests beyond ``Settings/maxSequences`` wait in a first-in, first-out queue.
/// - While sequences are decoding, at most ``promptTokensPerStepWhileDecoding`` prompt tokens join
///   a step, so a long prompt delays the running streams only a little per step.
/// - Each step is one job of this actor, on the shared llama thread
///   (``LlamaConversation/sharedExecutor``), so other llama.cpp work interleaves between steps and
///   a single OpenMP team serves them all. Steps stop when nothing is left to do.
/// - A cancelled request leaves at the next step and its KV entries are removed; a failed
///   `llama_decode` fails the requests in that batch (``OnDeviceModelError/decodeFailed(code:)``)
///   and clears their sequences, while queued requests go on.
///
/// The KV cache is unified (`kv_unified`): all sequences share one buffer of
/// `maxSequences × contextSizePerSequence` cells. With separate per-sequence buffers llama.cpp
/// splits a batch into one micro-batch per run of consecutive sequence ids, which loses the
/// batching as soon as sequences finish out of order.
actor BatchScheduler {
  /// The shape of the context.
  struct Settings: Sendable, Hashable {
    /// Sequences (requests) decoded together.
    var maxSequences: Int
    /// Tokens each sequence may hold.
    var contextSizePerSequence: Int
    /// The most tokens in one step's batch; at least `maxSequences`.
    var batchSize: Int
    /// CPU threads for llama.cpp.
    var threads: Int
    /// One KV buffer shared by all sequences (`true`), or one per sequence.
    var kvUnified: Bool
  }

  /// llama.cpp's limit on sequences per context (`LLAMA_MAX_SEQ`).
  static let maximumSequences = 256

  /// The most tokens llama.cpp evaluates in one pass (`n_ubatch`); a step's batch is split into
  /// passes of this size. Below 64 because from 64 query rows on, ggml's CPU flash attention
  /// switches to a tiled kernel whose rounding differs: a sequence's logits would then depend on
  /// how many other tokens share its pass, and greedy answers would change with the load.
  static let microBatchSize = 63

  /// The most prompt tokens added to a step in which other sequences decode. A step of 128
  /// prompt tokens costs a 135M model on 2 cores about as much as a few decode steps.
  static let promptTokensPerStepWhileDecoding = 128

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    LlamaConversation.sharedExecutor.asUnownedSerialExecutor()
  }

  nonisolated let weights: LlamaModelWeights
  nonisolated let settings: Settings
  private let logger: Logger

  private var context: OpaquePointer?
  private var batch: LlamaBatch?
  /// Requests waiting for a free sequence, oldest first.
  private var waiting: [BatchRequest] = []
  /// Requests being served, oldest first (prompt chunks go to the oldest first).
  private var active: [BatchedSequence] = []
  /// Sequence ids not in use, ascending.
  private var freeSequenceIDs: [llama_seq_id]
  /// Whether a task is running steps.
  private var isStepping = false
  /// A result code the next step reports instead of calling `llama_decode` (tests only).
  private var injectedDecodeResult: Int32?

  init(weights: LlamaModelWeights, settings: Settings, logger: Logger) {
    self.weights = weights
    self.settings = settings
    self.logger = logger
    freeSequenceIDs = (0..<settings.maxSequences).map { llama_seq_id($0) }
  }

  isolated deinit {
    if let context { llama_free(context) }
  }

  // MARK: - Requests

  /// Queues a request and starts stepping if idle. The answer arrives on the request's continuation.
  func submit(_ request: BatchRequest) {
    waiting.append(request)
    logger.debug("request queued", metadata: [
      "promptTokens": "\(request.promptTokens.count)", "active": "\(active.count)", "waiting": "\(waiting.count)",
    ])
    guard !isStepping else { return }
    isStepping = true
    Task { await runSteps() }
  }

  /// Makes the next step fail as if `llama_decode` had returned `code`. For tests.
  func injectDecodeFailure(code: Int32) {
    injectedDecodeResult = code
  }

  /// Requests being served and waiting, for tests and diagnostics.
  var load: (active: Int, waiting: Int) { (active.count, waiting.count) }

  // MARK: - Stepping

  private func runSteps() async {
    while step() {
      await Task.yield()   // let other jobs of the llama thread (and new submissions) run between steps
    }
    isStepping = false
  }

  /// Drops cancelled requests, admits waiting ones, evaluates one batch and samples from it.
  /// Returns whether there is more to do.
  private func step() -> Bool {
    dropCancelledRequests()
    admitWaitingRequests()
    guard let context, let batch, !active.isEmpty else { return !waiting.isEmpty }
    fill(batch)
    guard batch.count > 0 else { return false }

    let result: Int32
    if let injected = injectedDecodeResult {
      injectedDecodeResult = nil
      result = injected
    } else {
      result = llama_decode(context, batch.raw)
    }
    let inBatch = active.filter { $0.tokensInBatch > 0 }
    guard result == 0 else {
      logger.error("llama_decode failed; failing the requests in the batch", metadata: [
        "code": "\(result)", "sequences": "\(inBatch.map(\.id))", "batchTokens": "\(batch.count)",
      ])
      for sequence in inBatch { finish(sequence, throwing: OnDeviceModelError.decodeFailed(code: result)) }
      return !active.isEmpty || !waiting.isEmpty
    }
    logger.trace("decoded a batch", metadata: ["batchTokens": "\(batch.count)", "sequences": "\(inBatch.count)"])

    let now = ContinuousClock.now
    for sequence in inBatch {
      sequence.position += sequence.tokensInBatch
      sequence.nextToken = nil
      if sequence.promptEvaluated == nil, !sequence.isEvaluatingPrompt { sequence.promptEvaluated = now }
      if let index = sequence.logitsIndex { advance(sequence, logitsAt: index, in: context) }
    }
    return !active.isEmpty || !waiting.isEmpty
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
      do {
        try makeContextIfNeeded()
      } catch {
        request.continuation.finish(throwing: error)
        continue
      }
      let id = freeSequenceIDs.removeFirst()   // the lowest: keeps the ids in use consecutive
      active.append(BatchedSequence(id: id, request: request, vocabularySize: weights.vocabularySize))
      logger.debug("sequence started", metadata: [
        "seq": "\(id)", "promptTokens": "\(promptTokens)", "active": "\(active.count)", "waiting": "\(waiting.count)",
      ])
    }
  }

  /// One token of every decoding sequence, then prompt chunks, oldest request first.
  private func fill(_ batch: LlamaBatch) {
    batch.removeAll()
    // By sequence id: llama.cpp puts runs of consecutive ids in one pass (see Settings.kvUnified).
    for sequence in active.sorted(by: { $0.id < $1.id }) {
      sequence.tokensInBatch = 0
      sequence.logitsIndex = nil
      if let token = sequence.nextToken {
        sequence.logitsIndex = batch.append(token, position: sequence.position, sequence: sequence.id, wantsLogits: true)
        sequence.tokensInBatch = 1
      }
    }
    var budget = batch.remaining
    if batch.count > 0 { budget = min(budget, Self.promptTokensPerStepWhileDecoding) }
    for sequence in active where sequence.isEvaluatingPrompt {
      guard budget > 0 else { break }
      let prompt = sequence.request.promptTokens
      let chunk = sequence.position..<min(prompt.count, sequence.position + budget)
      for index in chunk {
        let isLast = index == prompt.count - 1
        let batchIndex = batch.append(prompt[index], position: index, sequence: sequence.id, wantsLogits: isLast)
        if isLast { sequence.logitsIndex = batchIndex }
      }
      sequence.tokensInBatch = chunk.count
      budget -= chunk.count
    }
  }

  /// Samples a sequence's next token from its logits in the batch just decoded, streams its text,
  /// and either schedules the token for the next step or finishes the request.
  private func advance(_ sequence: BatchedSequence, logitsAt index: Int32, in context: OpaquePointer) {
    if sequence.request.cancellation.isCancelled { return finish(sequence, throwing: CancellationError()) }
    guard sequence.generated < sequence.limit else { return complete(sequence, .maxTokens) }
    guard sequence.position < settings.contextSizePerSequence else { return complete(sequence, .contextWindowFull) }
    let token = sequence.sampler.sample(context, at: index)
    if sequence.firstToken == nil { sequence.firstToken = .now }
    if weights.isEndOfGeneration(token) { return complete(sequence, .stop) }
    sequence.generated += 1
    let continuation = sequence.request.continuation
    if sequence.text.append(weights.bytes(of: token), emit: { continuation.yield(.textDelta($0)) }) {
      return complete(sequence, .stop)
    }
    guard sequence.generated < sequence.limit else { return complete(sequence, .maxTokens) }
    sequence.nextToken = token
  }

  // MARK: - Finishing

  /// Ends a request normally: the rest of its text, then its ``RawResponse``.
  private func complete(_ sequence: BatchedSequence, _ finishReason: FinishReason) {
    let request = sequence.request
    sequence.text.finish { request.continuation.yield(.textDelta($0)) }
    let finished = ContinuousClock.now
    let response = RawResponse(
      modelVersion: request.modelVersion,
      source: .onDevice,
      usage: Usage(promptTokens: request.promptTokens.count, outputTokens: sequence.generated),
      finishReason: finishReason,
      timings: GenerationTimings(
        promptEvaluation: (sequence.promptEvaluated ?? finished) - sequence.admitted,
        timeToFirstToken: sequence.firstToken.map { $0 - request.requestStarted },
        generation: sequence.firstToken.map { finished - $0 } ?? .zero,
        evaluatedPromptTokens: request.promptTokens.count,
        generatedTokens: sequence.generated))
    request.continuation.yield(.completed(response))
    request.continuation.finish()
    release(sequence)
    logger.debug("sequence finished", metadata: [
      "seq": "\(sequence.id)", "promptTokens": "\(request.promptTokens.count)",
      "outputTokens": "\(sequence.generated)", "finishReason": "\(finishReason)",
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

  /// Removes the sequence's tokens from the KV cache and frees its id.
  private func release(_ sequence: BatchedSequence) {
    if let context { llama_memory_seq_rm(llama_get_memory(context), sequence.id, -1, -1) }
    active.removeAll { $0 === sequence }
    freeSequenceIDs.insert(sequence.id, at: freeSequenceIDs.firstIndex { $0 > sequence.id } ?? freeSequenceIDs.endIndex)
  }

  // MARK: - Context

  private func makeContextIfNeeded() throws(OnDeviceModelError) {
    guard context == nil else { return }
    let cells = settings.maxSequences * settings.contextSizePerSequence
    var params = llama_context_default_params()
    params.n_ctx = UInt32(cells)
    params.n_batch = UInt32(settings.batchSize)
    params.n_ubatch = UInt32(min(settings.batchSize, Self.microBatchSize))
    params.n_seq_max = UInt32(settings.maxSequences)
    params.kv_unified = settings.kvUnified
    params.n_threads = Int32(settings.threads)
    params.n_threads_batch = Int32(settings.threads)
    params.no_perf = true
    guard let made = llama_init_from_model(weights.pointer, params) else {
      throw .contextCreationFailed(contextSize: cells)
    }
    context = made
    batch = LlamaBatch(capacity: settings.batchSize)
    logger.debug("created batched llama context", metadata: [
      "sequences": "\(settings.maxSequences)", "contextSizePerSequence": "\(settings.contextSizePerSequence)",
      "batchSize": "\(settings.batchSize)", "threads": "\(settings.threads)",
    ])
  }
}
