import CLlama
import Foundation
import HybridAI
import Logging
import Synchronization

/// An on-device model that serves many requests at once by decoding them together: continuous
/// batching on one llama.cpp context, for servers.
///
/// ```swift
/// let model = BatchedLanguageModel(modelPath: path, configuration: .init(maxConcurrentSequences: 8))
/// // Requests from different tasks share each decode step.
/// for try await event in model.generate(request) { … }
/// ```
///
/// Every request is a llama.cpp sequence of one shared context; each step evaluates the next token
/// of every decoding request in a single batch, so a pass over the weights serves them all, and
/// evaluates new requests' prompts in chunks between these passes. Requests beyond
/// ``Configuration/maxConcurrentSequences`` wait in a first-in, first-out queue. (With
/// ``Configuration/contexts`` above one, the sequences are spread over that many contexts, each
/// batching its own.)
///
/// Answers do not depend on what else is being decoded: with greedy sampling (or a seed) a request
/// gets the same text alone or under load, and the same as from a ``SystemLanguageModel`` with the
/// same batch size. The exception: once a request holds more than 256 tokens, a step in which it
/// decodes alone rounds its attention slightly differently (llama.cpp splits the work across
/// threads), so a long greedy answer can depend on whether others were decoding alongside.
///
/// Unlike ``SystemLanguageModel`` it keeps no KV cache between requests: each request evaluates
/// its whole prompt (``Usage/cachedPromptTokens`` is 0), as suits a stateless API.
public final class BatchedLanguageModel: LanguageModel {
  /// The GGUF file.
  public let modelPath: String
  /// How the model runs.
  public let configuration: Configuration

  /// Availability checks and prompt preparation (weights, chat template, tokenizer) are the same
  /// as the single-session model's; its context size is the batched KV cache's, for the memory check.
  let singleSession: SystemLanguageModel
  /// The schedulers (one per context, ``Configuration/contexts``) for the weights now loaded
  /// (replaced when the model file changes), and whether ``shutDown()`` was called: one lock, so
  /// no scheduler is made after the shutdown began.
  private let schedulerState = Mutex<(lanes: [BatchLane], isShutDown: Bool)>(([], false))
  private let logger: Logger

  /// A batched model from any GGUF file.
  public init(modelPath: String, configuration: Configuration = Configuration()) {
    self.modelPath = modelPath
    self.configuration = configuration
    let (cells, overflow) = configuration.maxConcurrentSequences.multipliedReportingOverflow(
      by: configuration.contextSizePerSequence)
    var single = SystemLanguageModel.Configuration(
      contextSize: overflow ? Int(Int32.max) : min(cells, Int(Int32.max)),
      batchSize: configuration.batchSize, threads: configuration.threads, chatTemplate: configuration.chatTemplate,
      gpuLayers: configuration.gpuLayers, device: configuration.device, pooling: configuration.pooling,
      speculation: configuration.speculation, projectorPath: configuration.projectorPath)
    single.contextsSharingWeights = Self.contexts(configuration.contexts ?? Self.contextsFromEnvironment,
                                                  sequences: Self.sequences(configuration))
    singleSession = SystemLanguageModel(modelPath: modelPath, configuration: single)
    var logger = Logger(label: "HybridAI.onDevice.batched")
    logger[metadataKey: "model"] = "\(URL(fileURLWithPath: modelPath).lastPathComponent)"
    self.logger = logger
  }

  /// The file name without `.gguf`, e.g. `SmolLM2-135M-Instruct.Q4_1`; reported as `modelVersion`.
  public var modelIdentifier: String { singleSession.modelIdentifier }

  /// The prompt `request` decodes from, as the model reads it (for tests and debugging).
  func promptText(for request: GenerationRequest) async throws -> String {
    try await singleSession.promptText(for: request)
  }

  /// Always ``ModelSource/onDevice``.
  public var source: ModelSource { .onDevice }

  /// Text, and what the projector (``Configuration/projectorPath``) reads.
  public var capabilities: ModelCapabilities { singleSession.capabilities }

  /// Whether the model can run now; the same checks as ``SystemLanguageModel/availability``, with
  /// memory for the whole batched KV cache.
  public var availability: ModelAvailability { singleSession.availability }

  /// ``availability`` with a human-readable explanation when unavailable.
  public var availabilityDetail: String? { singleSession.availabilityDetail }

  /// Where the model's layers run, as ``SystemLanguageModel/placement()`` reports it (sized for
  /// the whole batched KV cache).
  public func placement() throws -> ModelPlacement { try singleSession.placement() }

  /// Starts the delivered file's download, as ``SystemLanguageModel/prepareAssets()`` does.
  public func prepareAssets() { singleSession.prepareAssets() }

  /// Whether the rendered prompt fits one sequence's context (``Configuration/contextSizePerSequence``,
  /// capped at the model's training context). Other problems are reported by ``generate(_:)``.
  public func supports(_ request: GenerationRequest) async -> RequestSupport {
    await singleSession.support(for: request, contextSize: contextSizePerSequence(for:))
  }

  /// Generates the answer, decoding it together with the other requests in flight.
  ///
  /// Stopping the iteration (or cancelling its task) ends the request within one decode step.
  /// A prompt that does not fit throws ``GenerationError/exceededContextWindowSize(promptTokens:contextSize:)``.
  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let cancellation = CancellationFlag()
    let assignment = BatchLaneAssignment()
    let task = Task {
      do {
        let started = ContinuousClock.now
        let prepared = try await singleSession.prepare(request)
        let contextSize = contextSizePerSequence(for: prepared.weights)
        guard prepared.tokens.count < contextSize else {
          throw GenerationError.exceededContextWindowSize(promptTokens: prepared.tokens.count, contextSize: contextSize)
        }
        // A chat template always follows the last medium with text; a prompt that ends with one
        // has no token whose logits could start the answer.
        guard !prepared.prompt.endsWithMedium else { throw OnDeviceModelError.tokenizationFailed }
        let draftWeights = try await singleSession.draftWeights(for: prepared.weights)
        try Task.checkCancellation()
        let lanes = try lanes(for: prepared.weights)
        var cachedStarts: [Int] = []
        if lanes.count > 1, configuration.reusesPromptPrefixes {
          for lane in lanes { cachedStarts.append(await lane.scheduler.cachedStartLength(of: prepared.tokens)) }
        }
        let lane = try assignment.assign { () throws(OnDeviceModelError) in
          try leastLoadedLane(for: prepared.weights, cachedStarts: cachedStarts)
        }
        await lane.scheduler.submit(BatchRequest(
          prompt: prepared.prompt, options: prepared.options(for: request),
          guidance: prepared.guidance, modelVersion: modelIdentifier, requestStarted: started, cancellation: cancellation,
          continuation: continuation, draftWeights: draftWeights))
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in
      cancellation.cancel()
      task.cancel()
      assignment.end()
    }
    return stream
  }

  /// Loads the weights, creates the batched context (every one of ``contexts``) and runs a
  /// one-token answer to `request` through it, so that the first real request does not pay for
  /// any of it (a server calls this before it says it is ready). With
  /// ``Configuration/reusesPromptPrefixes`` the prompt stays cached for the requests that start
  /// with it. Throws what that request would throw (a missing file, no chat template, a prompt
  /// that does not fit, …).
  public func prewarm(_ request: GenerationRequest) async throws {
    var oneToken = request
    oneToken.options.sampling = .greedy
    oneToken.options.maximumResponseTokens = 1
    let warming = oneToken
    // As many at once as there are contexts: each goes to a context of its own (the least loaded).
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<contexts {
        group.addTask { for try await _ in self.generate(warming) {} }
      }
      try await group.waitForAll()
    }
  }

  /// ``prewarm(_:)`` with a one-word prompt: loads everything a request needs.
  public func prewarm() async throws {
    try await prewarm(GenerationRequest(transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: "Hi"))]),
                                        options: GenerationOptions()))
  }

  /// Tokens one request may hold, prompt and answer: ``Configuration/contextSizePerSequence``,
  /// capped at the model's training context.
  public var contextSize: Int {
    get async throws {
      SystemLanguageModel.cappedContextSize(configuration.contextSizePerSequence,
                                            trainingContextLength: try singleSession.trainingContextLength())
    }
  }

  /// The prompt tokens `request` would report in ``Usage/promptTokens``: its transcript rendered
  /// with the chat template, tool declarations included. A response schema adds none (it
  /// constrains decoding and is not part of the prompt).
  public func tokenCount(for request: GenerationRequest) async throws -> Int {
    try await singleSession.prepare(request).tokens.count
  }

  /// Ends every request in flight with ``OnDeviceModelError/shuttingDown`` (a server's streams get
  /// it as their last event), refuses new ones the same way, and frees the llama.cpp context before
  /// returning. Call it when the process stops, before ``OnDeviceRuntime/shutDown()``.
  public func shutDown() async {
    let lanes = schedulerState.withLock { state in
      defer { state = ([], true) }
      return state.lanes
    }
    for lane in lanes { await lane.scheduler.close() }
  }

  /// How many requests decode in the batch now and how many wait for a free sequence (for a
  /// server's metrics); zero before the first request.
  public func occupancy() async -> BatchOccupancy {
    var total = BatchOccupancy(active: 0, waiting: 0)
    for lane in schedulerState.withLock({ $0.lanes }) {
      let occupancy = await lane.scheduler.occupancy
      total = BatchOccupancy(active: total.active + occupancy.active, waiting: total.waiting + occupancy.waiting)
    }
    return total
  }

  // MARK: - Internals

  /// The first scheduler serving these weights (made on first use); with one context, the only one.
  func scheduler(for weights: LlamaModelWeights) throws(OnDeviceModelError) -> BatchScheduler {
    try lanes(for: weights)[0].scheduler
  }

  /// The schedulers serving these weights, one per context (made on first use).
  func schedulers(for weights: LlamaModelWeights) throws(OnDeviceModelError) -> [BatchScheduler] {
    try lanes(for: weights).map(\.scheduler)
  }

  /// The context with the fewest unfinished requests, counting the new one; of equals, the one
  /// holding most of the prompt's start (`cachedStarts`, by context).
  private func leastLoadedLane(for weights: LlamaModelWeights, cachedStarts: [Int]) throws(OnDeviceModelError) -> BatchLane {
    try schedulerState.withLock { (state) throws(OnDeviceModelError) in
      BatchLane.leastLoaded(of: try lanes(for: weights, in: &state), cachedStarts: cachedStarts)
    }
  }

  /// The contexts serving these weights with their schedulers (made on first use).
  func lanes(for weights: LlamaModelWeights) throws(OnDeviceModelError) -> [BatchLane] {
    try schedulerState.withLock { (state) throws(OnDeviceModelError) in try lanes(for: weights, in: &state) }
  }

  private func lanes(for weights: LlamaModelWeights,
                     in state: inout (lanes: [BatchLane], isShutDown: Bool)) throws(OnDeviceModelError) -> [BatchLane] {
    if state.isShutDown { throw .shuttingDown }
    if let first = state.lanes.first, first.scheduler.weights === weights { return state.lanes }
    let contexts = self.contexts
    state.lanes = (0..<contexts).map { index in
      var logger = logger
      if contexts > 1 { logger[metadataKey: "context"] = "\(index)" }
      return BatchLane(scheduler: BatchScheduler(
        weights: weights, settings: schedulerSettings(for: weights, sequences: Self.share(of: sequences, for: index, among: contexts),
                                                      yieldsWhileComputing: contexts > 1),
        logger: logger))
    }
    return state.lanes
  }

  /// The llama.cpp contexts the sequences are spread over: ``Configuration/contexts`` (`nil`: one,
  /// or `HYBRIDAI_BATCH_CONTEXTS`), at most one a sequence.
  public var contexts: Int { Self.contexts(configuration.contexts ?? Self.contextsFromEnvironment, sequences: sequences) }

  /// Sequences in all: ``Configuration/maxConcurrentSequences`` (settable, so clamped again).
  private var sequences: Int { Self.sequences(configuration) }

  private static func sequences(_ configuration: Configuration) -> Int {
    min(max(1, configuration.maxConcurrentSequences), BatchScheduler.maximumSequences)
  }

  /// Contexts for `wanted` (`nil`: one), at least one and at most one per sequence.
  static func contexts(_ wanted: Int?, sequences: Int) -> Int { min(max(1, wanted ?? 1), max(1, sequences)) }

  /// Context `index`'s sequences of `sequences` spread over `contexts`: as even as they go, the
  /// first ones one more.
  static func share(of sequences: Int, for index: Int, among contexts: Int) -> Int {
    sequences / contexts + (index < sequences % contexts ? 1 : 0)
  }

  private func schedulerSettings(for weights: LlamaModelWeights, sequences: Int,
                                 yieldsWhileComputing: Bool) -> BatchScheduler.Settings {
    BatchScheduler.Settings(
      maxSequences: sequences, contextSizePerSequence: contextSizePerSequence(for: weights),
      batchSize: max(configuration.batchSize, sequences), threads: max(1, configuration.threads),
      backendSampling: configuration.backendSampling ?? Self.backendSamplingFromEnvironment ?? false,
      reusesPromptPrefixes: configuration.reusesPromptPrefixes,
      promptScheduling: configuration.promptScheduling ?? (weights.placement.usesGPU ? .throughput : .reproducible),
      promptStateCacheBytes: configuration.promptCacheBytes(usesGPU: weights.placement.usesGPU),
      overlapsText: Self.textOverlapFromEnvironment ?? true,
      detachesIdleSamplers: Self.idleSamplerDetachingFromEnvironment ?? true,
      samplesRowsTogether: Self.rowSamplingTogetherFromEnvironment ?? true,
      yieldsWhileComputing: yieldsWhileComputing,
      speculation: configuration.speculation.fitting(batchSize: max(configuration.batchSize, sequences))
        .supported(by: weights, logger: logger))
  }

  /// `HYBRIDAI_BATCH_CONTEXTS=N`: the contexts of every batched model whose configuration leaves
  /// ``Configuration/contexts`` `nil` — a switch for measuring them (`scripts/gpu-check`).
  static let contextsFromEnvironment = ProcessInfo.processInfo.environment["HYBRIDAI_BATCH_CONTEXTS"].flatMap { Int($0) }

  /// `HYBRIDAI_BACKEND_SAMPLING=0|1`: backend sampling off or on for every batched model whose
  /// configuration leaves it `nil` (then off) — a switch for measuring its effect (`scripts/gpu-check`).
  static let backendSamplingFromEnvironment = environmentSwitch("HYBRIDAI_BACKEND_SAMPLING")

  /// `HYBRIDAI_TEXT_OVERLAP=0|1`: whether the throughput scheduling streams each token's text
  /// while the next step computes — a switch for measuring the overlap (`scripts/gpu-check`).
  static let textOverlapFromEnvironment = environmentSwitch("HYBRIDAI_TEXT_OVERLAP")

  /// `HYBRIDAI_DETACH_IDLE_SAMPLERS=0|1`: whether backend sampler chains of free sequences are
  /// detached after a sustained narrow load (``BatchScheduler/idleSamplerSteps``) — a switch for
  /// measuring what they cost (`scripts/gpu-check`).
  static let idleSamplerDetachingFromEnvironment = environmentSwitch("HYBRIDAI_DETACH_IDLE_SAMPLERS")

  /// `HYBRIDAI_SAMPLE_ROWS_TOGETHER=0|1`: whether a step's randomly sampled rows are chosen on
  /// several threads (``SampledRows``) — a switch for measuring what that saves (`scripts/gpu-check`).
  static let rowSamplingTogetherFromEnvironment = environmentSwitch("HYBRIDAI_SAMPLE_ROWS_TOGETHER")

  /// A measuring switch from the environment: `0`/`off`/`false`, `1`/`on`/`true`, else `nil`.
  private static func environmentSwitch(_ name: String) -> Bool? {
    switch ProcessInfo.processInfo.environment[name] {
    case "0", "off", "false": false
    case "1", "on", "true": true
    default: nil
    }
  }

  private func contextSizePerSequence(for weights: LlamaModelWeights) -> Int {
    SystemLanguageModel.cappedContextSize(configuration.contextSizePerSequence,
                                          trainingContextLength: weights.trainingContextLength)
  }
}
