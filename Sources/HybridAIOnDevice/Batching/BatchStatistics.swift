/// What a ``BatchScheduler`` has done since it started: how many steps and llama.cpp calls, how
/// many tokens they held, and where the time went — inside `llama_decode` (until its results are
/// ready) or in the scheduler's own work around it (sampling on the CPU, detokenising, handing text
/// to the streams, building the next batch).
struct BatchStatistics: Sendable, Hashable {
  /// Steps run (each decodes the next token of every decoding request, and prompt tokens).
  var steps = 0
  /// `llama_decode` calls.
  var decodeCalls = 0
  /// Tokens in those calls, prompt and answer.
  var decodedTokens = 0
  /// Answer tokens decoded (one per decoding request per step).
  var answerTokens = 0
  /// Passes whose compute graph llama.cpp reused from the pass before instead of building it again
  /// (same shape, sequences, outputs and samplers; its `llama_perf_context` count).
  var graphsReused = 0
  /// `llama_decode` calls whose sequences' ids did not form one consecutive run: with a KV buffer
  /// per sequence llama.cpp then computes one pass per run (and rebuilds the graph for each), so
  /// such a step costs up to a pass per run instead of one.
  var splitCalls = 0
  /// Sequence states copied into the prompt cache in memory (see ``PromptStateCache``).
  var statesSaved = 0
  /// Sequence states not copied because the prompt cache held their tokens already.
  var statesAlreadyHeld = 0
  /// Prompts that copied their start from another request in the batch (the same system prompt,
  /// or the same prompt, arriving together) instead of evaluating it too.
  var promptStartsShared = 0
  /// Backend sampler chains attached to sequences (each makes llama.cpp reserve its graphs again).
  var samplersAttached = 0
  /// Backend sampler chains detached from free sequences after a sustained narrow load
  /// (``BatchScheduler/idleSamplerSteps``).
  var samplersDetached = 0
  /// Greedy tokens chosen on the CPU by one scan of many rows on several threads
  /// (``LargestLogit/indices(ofRows:rowLength:threads:)``), not one sequence at a time.
  var rowsScannedTogether = 0
  /// Randomly sampled tokens chosen side by side on several threads, each row by its own request's
  /// sampler chain (``SampledRows/choices(ofRows:samplers:threads:)``), not one sequence at a time.
  var rowsSampledTogether = 0
  /// Tokens drafted by speculative decoding and evaluated to be checked.
  var draftTokens = 0
  /// Drafted tokens the model chose too (answer tokens that cost no step of their own).
  var acceptedDraftTokens = 0
  /// Time inside `llama_decode` and waiting for its results: ``launchTime`` + ``waitTime``.
  var decodeTime: Duration { launchTime + waitTime }
  /// Time inside `llama_decode` calls (on a GPU: building the graph and queueing its work; on the
  /// CPU: all of it).
  var launchTime = Duration.zero
  /// Time waiting for the results after `llama_decode` returned (a GPU still computing).
  var waitTime = Duration.zero
  /// Time in steps, `decodeTime` included.
  var stepTime = Duration.zero
  /// Time encoding images and sounds and evaluating their embeddings (part of ``stepTime``,
  /// not of ``decodeTime``).
  var mediaEncodingTime = Duration.zero

  /// Time in steps outside `llama_decode` and media encoding.
  var schedulingTime: Duration { stepTime - decodeTime - mediaEncodingTime }

  /// The change since `earlier`.
  func since(_ earlier: BatchStatistics) -> BatchStatistics {
    BatchStatistics(steps: steps - earlier.steps, decodeCalls: decodeCalls - earlier.decodeCalls,
                    decodedTokens: decodedTokens - earlier.decodedTokens, answerTokens: answerTokens - earlier.answerTokens,
                    graphsReused: graphsReused - earlier.graphsReused, splitCalls: splitCalls - earlier.splitCalls,
                    statesSaved: statesSaved - earlier.statesSaved,
                    statesAlreadyHeld: statesAlreadyHeld - earlier.statesAlreadyHeld,
                    promptStartsShared: promptStartsShared - earlier.promptStartsShared,
                    samplersAttached: samplersAttached - earlier.samplersAttached,
                    samplersDetached: samplersDetached - earlier.samplersDetached,
                    rowsScannedTogether: rowsScannedTogether - earlier.rowsScannedTogether,
                    rowsSampledTogether: rowsSampledTogether - earlier.rowsSampledTogether,
                    draftTokens: draftTokens - earlier.draftTokens, acceptedDraftTokens: acceptedDraftTokens - earlier.acceptedDraftTokens,
                    launchTime: launchTime - earlier.launchTime, waitTime: waitTime - earlier.waitTime,
                    stepTime: stepTime - earlier.stepTime)
  }

  /// Log metadata: counts, milliseconds, and the mean answer tokens per step (the batch's width).
  var summary: [String: String] {
    [
      "steps": "\(steps)", "decodeCalls": "\(decodeCalls)", "decodedTokens": "\(decodedTokens)",
      "answerTokens": "\(answerTokens)",
      "graphsReused": "\(graphsReused)", "splitCalls": "\(splitCalls)", "statesSaved": "\(statesSaved)", "statesAlreadyHeld": "\(statesAlreadyHeld)",
      "promptStartsShared": "\(promptStartsShared)", "samplersAttached": "\(samplersAttached)", "samplersDetached": "\(samplersDetached)",
      "rowsScannedTogether": "\(rowsScannedTogether)", "rowsSampledTogether": "\(rowsSampledTogether)",
      "draftTokens": "\(draftTokens)", "acceptedDraftTokens": "\(acceptedDraftTokens)",
      "decodeMs": "\(decodeTime.milliseconds)", "launchMs": "\(launchTime.milliseconds)",
      "waitMs": "\(waitTime.milliseconds)", "schedulingMs": "\(schedulingTime.milliseconds)",
      "meanWidth": steps > 0 ? String(answerTokens / steps) : "0",
    ]
  }
}

extension Duration {
  /// Whole milliseconds, for log metadata.
  var milliseconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
  }
}
