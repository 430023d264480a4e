import CLlama
import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Synchronization
import Testing

/// Real-model tests of continuous batching: SmolLM2-135M, greedy, short answers. Each test has its
/// own model and scheduler, so they run in parallel: serialized, this suite (89 s alone on 2
/// cores) was the last to finish a `make test` by about 90 s.
@Suite("BatchedLanguageModel: continuous batching on llama.cpp")
struct BatchedLanguageModelTests {
  static let prompts = [
    "Name three colors.",
    "What is the capital of France? Answer in one sentence.",
    "Write a haiku about the sea.",
    "Explain in two sentences why the sky is blue, for a child who is five years old.",
    "List four animals that live on a farm.",
  ]

  func batchedModel(sequences: Int = 4, contextSizePerSequence: Int = 2048,
                    promptScheduling: BatchedLanguageModel.PromptScheduling? = nil, reusesPromptPrefixes: Bool = false,
                    backendSampling: Bool? = nil) throws -> BatchedLanguageModel {
    _ = try TestModel.requireModel()
    return BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: sequences, contextSizePerSequence: contextSizePerSequence, backendSampling: backendSampling,
      reusesPromptPrefixes: reusesPromptPrefixes, promptScheduling: promptScheduling))
  }

  /// Both schedulings: throughput mode also streams each token's text during the next step.
  static let schedulings: [BatchedLanguageModel.PromptScheduling] = [.reproducible, .throughput]

  @Test("identity, availability and source")
  func identity() throws {
    let model = try batchedModel()
    #expect(model.modelIdentifier == "SmolLM2-135M-Instruct.Q4_1")
    #expect(model.source == .onDevice)
    #expect(model.availability == .available, "\(model.availabilityDetail ?? "")")
  }

  @Test("a single greedy request gives exactly SystemLanguageModel's text")
  func singleRequestMatchesSystemModel() async throws {
    let system = try TestModel.requireModel()
    let batched = try batchedModel()
    for prompt in Self.prompts.prefix(3) {
      let expected = try await Answer.collect(system, prompt, TestModel.greedy)
      let actual = try await Answer.collect(batched, prompt, TestModel.greedy)
      #expect(!actual.text.isEmpty)
      #expect(actual.text == expected.text, "prompt: \(prompt)")
      #expect(actual.response.usage.promptTokens == expected.response.usage.promptTokens)
      #expect(actual.response.usage.outputTokens == expected.response.usage.outputTokens)
      #expect(actual.response.finishReason == expected.response.finishReason)
      #expect(actual.response.modelVersion == "SmolLM2-135M-Instruct.Q4_1")
      #expect(actual.response.source == .onDevice)
    }
  }

  @Test("prewarm loads the weights and makes the context before any request; a missing file is its typed error")
  func prewarm() async throws {
    let model = try batchedModel(sequences: 2)
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    #expect(try await !model.scheduler(for: weights).hasContext)
    try await model.prewarm()
    #expect(try await model.scheduler(for: weights).hasContext)
    #expect(try await model.scheduler(for: weights).load == (0, 0))
    #expect(!(try await Answer.collect(model, Self.prompts[0], TestModel.greedy)).text.isEmpty)

    let missing = BatchedLanguageModel(modelPath: "/nonexistent/model.gguf")
    await #expect(throws: OnDeviceModelError.self) { try await missing.prewarm() }
  }

  @Test("prompt prefix reuse: a later request evaluates only what its sequence does not hold yet; conversations keep their own sequences; off by default")
  func promptPrefixReuse() async throws {
    _ = try TestModel.requireModel()
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 2048, reusesPromptPrefixes: true))
    let first = try await Answer.collect(model, Self.prompts[0], TestModel.greedy)
    #expect(first.response.usage.cachedPromptTokens == 0)
    let again = try await Answer.collect(model, Self.prompts[0], TestModel.greedy)
    let usage = again.response.usage
    #expect(usage.cachedPromptTokens == usage.promptTokens - 1, "all but the last prompt token were held")
    #expect(again.response.timings?.evaluatedPromptTokens == 1)
    #expect(again.text == first.text)
    // Conversations with long answers that share only their start (the chat template, "Write a
    // long story about a"), less than half of what a sequence holds, keep sequences of their own.
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64)
    let dragon = try await Answer.collect(model, "Write a long story about a dragon.", story)
    #expect(dragon.response.usage.cachedPromptTokens > 0, "the short first answer's cache is mostly the template, which this prompt continues")
    // The castle takes the empty sequence, its shared start copied from the dragon's, whose cache stays.
    let castle = try await Answer.collect(model, "Write a long story about a castle.", story)
    let copied = castle.response.usage.cachedPromptTokens
    #expect(copied >= BatchScheduler.minimumCopiedPrefix && copied < castle.response.usage.promptTokens, "copied: \(copied)")
    #expect(castle.text == (try await Answer.collect(try batchedModel(), "Write a long story about a castle.", story)).text)
    let dragonAgain = try await Answer.collect(model, "Write a long story about a dragon.", story)
    #expect(dragonAgain.response.usage.cachedPromptTokens == dragonAgain.response.usage.promptTokens - 1)
    #expect(dragonAgain.text == dragon.text)
    let castleAgain = try await Answer.collect(model, "Write a long story about a castle.", story)
    #expect(castleAgain.response.usage.cachedPromptTokens == castleAgain.response.usage.promptTokens - 1)
    #expect(castleAgain.text == castle.text)
    // A third, both sequences holding caches it does not continue: the one unused longest (the
    // dragon's), whose shared start it reuses in place.
    let knight = try await Answer.collect(model, "Write a long story about a knight.", story)
    let shared = knight.response.usage.cachedPromptTokens
    #expect(shared > 0 && shared < knight.response.usage.promptTokens, "only the start is shared: \(shared)")
    #expect(knight.text == (try await Answer.collect(try batchedModel(), "Write a long story about a knight.", story)).text)

    let plain = try batchedModel()
    _ = try await Answer.collect(plain, Self.prompts[0], TestModel.greedy)
    #expect(try await Answer.collect(plain, Self.prompts[0], TestModel.greedy).response.usage.cachedPromptTokens == 0)
  }

  @Test("prompt prefix reuse keeps the sequences in use consecutive: a cache beyond a gap is copied next to the others, answers unchanged")
  func promptPrefixReuseKeepsSequenceIDsConsecutive() async throws {
    _ = try TestModel.requireModel()
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 3, contextSizePerSequence: 2048, reusesPromptPrefixes: true))
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64)
    let prompts = ["Write a long story about a dragon.", "Write a long story about a castle.", "Write a long story about a knight."]
    // One after another, the three take sequences 0, 1 and 2 and leave their caches there.
    var first: [String] = []
    for prompt in prompts { first.append(try await Answer.collect(model, prompt, story).text) }

    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let scheduler = try model.scheduler(for: weights)
    let before = await scheduler.statistics
    // The dragon and the knight again, together: their caches sit in sequences 0 and 2, which
    // llama.cpp would decode in two passes a step; one of them moves next to the other, its cache along.
    let again = try await Answer.collectConcurrently(model, [prompts[0], prompts[2]], story)
    let done = await scheduler.statistics.since(before)
    #expect(done.splitCalls == 0, "\(done.summary)")
    #expect(done.answerTokens > done.steps, "the two answers shared steps: \(done.summary)")
    #expect(again.map(\.text) == [first[0], first[2]])
    #expect(again.allSatisfy { $0.response.usage.cachedPromptTokens == $0.response.usage.promptTokens - 1 },
            "each kept its whole cached prompt")
  }

  @Test("requests that arrive together evaluate a shared prompt start once: the others copy it from the first",
        arguments: schedulings)
  func sharedPromptStartsArrivingTogether(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(sequences: 4, promptScheduling: scheduling, reusesPromptPrefixes: true)
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
    // The same question three times and another one: all four share the template's system prompt.
    let prompts = [Self.prompts[1], Self.prompts[1], Self.prompts[1], Self.prompts[2]]
    let tokens = try await Self.promptTokens(prompts, options)
    let sharedStart = tokens[0].reusablePrefixLength(for: tokens[3])
    #expect(sharedStart >= BatchScheduler.minimumCopiedPrefix, "the system prompt: \(sharedStart) tokens")
    var solo: [String: String] = [:]
    for prompt in Set(prompts) { solo[prompt] = try await Answer.collect(try batchedModel(sequences: 1), prompt, options).text }

    let scheduler = try await Self.scheduler(of: model)
    let before = await scheduler.statistics
    let streams = await Self.submitTogether(tokens, options, to: scheduler)
    var answers: [Answer] = []
    for stream in streams { answers.append(try await Answer.collect(stream)) }
    let done = await scheduler.statistics.since(before)

    #expect(answers.map(\.text) == prompts.map { solo[$0] }, "each answer is the one it gets alone")
    #expect(answers.map(\.response.usage.cachedPromptTokens) == [0, tokens[1].count - 1, tokens[2].count - 1, sharedStart],
            "the first evaluated the start once; the others copied it (\(done.summary))")
    #expect(done.promptStartsShared == 3, "\(done.summary)")
  }

  @Test("a request whose prompt a request in the batch has evaluated copies it at once, while that one answers",
        arguments: schedulings)
  func promptStartCopiedFromAnAnsweringRequest(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(sequences: 2, promptScheduling: scheduling, reusesPromptPrefixes: true)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 48)
    let short = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
    let story = "Write a long story about a dragon."
    let alone = try await Answer.collect(try batchedModel(sequences: 1), story, short)
    let scheduler = try await Self.scheduler(of: model)
    let before = await scheduler.statistics
    let answering = Answer.Recorder()
    let first = Task { try await Answer.collect(model, story, long, recorder: answering) }
    while answering.deltas == 0 { try await Task.sleep(for: .milliseconds(2)) }   // its prompt is in the cache
    let second = try await Answer.collect(model, story, short)
    #expect(!answering.completed, "the first request was still answering")
    #expect(second.response.usage.cachedPromptTokens == second.response.usage.promptTokens - 1)
    #expect(second.text == alone.text)
    #expect(try await first.value.response.usage.cachedPromptTokens == 0)
    #expect(await scheduler.statistics.since(before).promptStartsShared == 1)
  }

  @Test("a request waiting for another's prompt start evaluates it itself when that one fails", arguments: schedulings)
  func awaitedPromptStartWhoseSourceFails(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(sequences: 2, promptScheduling: scheduling, reusesPromptPrefixes: true)
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
    let tokens = try await Self.promptTokens([Self.prompts[0], Self.prompts[0]], options)
    let alone = try await Answer.collect(try batchedModel(sequences: 1), Self.prompts[0], options)

    let scheduler = try await Self.scheduler(of: model)
    // The first step holds only the first request (the second waits for its prompt) and fails.
    let streams = await Self.submitTogether(tokens, options, to: scheduler, failingFirstDecode: -3)
    await #expect(throws: OnDeviceModelError.decodeFailed(code: -3)) { try await Answer.collect(streams[0]) }
    let survivor = try await Answer.collect(streams[1])
    #expect(survivor.text == alone.text)
    #expect(survivor.response.usage.cachedPromptTokens == 0, "nothing to copy from a failed sequence")
  }

  /// The prompts' tokens, chat template applied, as the batched model computes them.
  static func promptTokens(_ prompts: [String], _ options: GenerationOptions) async throws -> [[llama_token]] {
    let system = try TestModel.requireModel()
    var tokens: [[llama_token]] = []
    for prompt in prompts {
      tokens.append(try await system.prepare(GenerationRequest(transcript: Answer.transcript(prompt), options: options)).tokens)
    }
    return tokens
  }

  /// The scheduler serving `model` (made now, before any request).
  static func scheduler(of model: BatchedLanguageModel) async throws -> BatchScheduler {
    try model.scheduler(for: try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement()))
  }

  /// Submits the prompts in one job of the scheduler, so that its next step finds them all waiting
  /// (requests that arrive together); optionally the first `llama_decode` then fails with `code`.
  static func submitTogether(_ prompts: [[llama_token]], _ options: GenerationOptions, to scheduler: isolated BatchScheduler,
                             failingFirstDecode code: Int32? = nil) -> [AsyncThrowingStream<GenerationEvent, any Error>] {
    if let code { scheduler.injectDecodeFailure(code: code) }
    return prompts.map { tokens in
      let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
      scheduler.submit(BatchRequest(prompt: MultimodalPrompt(tokens: tokens), options: options, guidance: nil, modelVersion: "test",
                                    requestStarted: .now, cancellation: CancellationFlag(), continuation: continuation))
      return stream
    }
  }

  @Test("prompt cache in memory: a conversation that had to make room is given back when it returns; off with 0 bytes")
  func promptStateCache() async throws {
    _ = try TestModel.requireModel()
    func model(memory: Int) -> BatchedLanguageModel {
      BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
        maxConcurrentSequences: 1, contextSizePerSequence: 2048, reusesPromptPrefixes: true, promptCacheMemory: memory))
    }
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: 48)
    let (dragonPrompt, castlePrompt) = ("Write a long story about a dragon.", "Write a long story about a castle.")
    let cached = model(memory: 64 << 20)
    let dragon = try await Answer.collect(cached, dragonPrompt, story)
    let castle = try await Answer.collect(cached, castlePrompt, story)   // the one sequence: the dragon's state is saved
    #expect(castle.response.usage.cachedPromptTokens < castle.response.usage.promptTokens - 1)
    for (prompt, first) in [(dragonPrompt, dragon), (castlePrompt, castle), (dragonPrompt, dragon)] {
      let again = try await Answer.collect(cached, prompt, story)
      #expect(again.response.usage.cachedPromptTokens == again.response.usage.promptTokens - 1, "restored: \(prompt)")
      #expect(again.text == first.text)
    }
    let uncached = model(memory: 0)
    _ = try await Answer.collect(uncached, dragonPrompt, story)
    _ = try await Answer.collect(uncached, castlePrompt, story)
    let again = try await Answer.collect(uncached, dragonPrompt, story)
    #expect(again.response.usage.cachedPromptTokens < again.response.usage.promptTokens - 1, "only the shared start")
    #expect(again.text == dragon.text)
  }

  @Test("prompt cache in memory: sequences that answered the same prompt are saved once when they make room for it again")
  func promptStateCacheSavesEachStateOnce() async throws {
    _ = try TestModel.requireModel()
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 2048, reusesPromptPrefixes: true))
    let prompt = "Write a long story about a dragon."
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: 24)
    let first = try await Answer.collectConcurrently(model, [prompt, prompt], story)
    #expect(first[0].text == first[1].text, "both sequences now hold the same prompt and answer")

    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let before = try await model.scheduler(for: weights).statistics
    // Each request continues its sequence's prompt and drops the answer after it: the first
    // drop is saved, the second holds the same tokens and is not copied again.
    let again = try await Answer.collectConcurrently(model, [prompt, prompt], story)
    let done = try await model.scheduler(for: weights).statistics.since(before)
    #expect(done.statesSaved == 1 && done.statesAlreadyHeld == 1, "\(done.summary)")
    #expect(again.map(\.text) == first.map(\.text))
    #expect(again.allSatisfy { $0.response.usage.cachedPromptTokens == $0.response.usage.promptTokens - 1 })
  }

  @Test("backend sampling (tokens picked in llama.cpp's graph) gives the CPU path's greedy text, beside a seeded random request sampled on the CPU")
  func backendSamplingMatchesCPUSampling() async throws {
    let cpuPath = try batchedModel()
    let inGraph = try batchedModel(sequences: 4, backendSampling: true)
    let seeded = GenerationOptions(sampling: .random(top: 40, seed: 7), temperature: 0.8, maximumResponseTokens: 24)
    for prompt in Self.prompts.prefix(2) {
      async let greedyInGraph = Answer.collect(inGraph, prompt, TestModel.greedy)
      async let randomInGraphModel = Answer.collect(inGraph, prompt, seeded)
      let (greedy, random) = try await (greedyInGraph, randomInGraphModel)
      #expect(!greedy.text.isEmpty)
      #expect(greedy.text == (try await Answer.collect(cpuPath, prompt, TestModel.greedy)).text, "prompt: \(prompt)")
      #expect(random.text == (try await Answer.collect(cpuPath, prompt, seeded)).text, "prompt: \(prompt)")
    }
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: inGraph.placement())
    #expect(try await !inGraph.scheduler(for: weights).backendSampledSequences.isEmpty, "a greedy request was sampled in the graph")
    #expect(try await cpuPath.scheduler(for: weights).backendSampledSequences.isEmpty)
  }

  @Test("backend sampling: one sequence taken by greedy, then random, then greedy requests re-attaches a sampler each time")
  func backendSamplerReattachedToASequence() async throws {
    let inGraph = try batchedModel(sequences: 1, backendSampling: true)
    let cpuPath = try batchedModel(sequences: 1)
    let seeded = GenerationOptions(sampling: .random(top: 40, seed: 7), temperature: 0.8, maximumResponseTokens: 12)
    let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 12)
    let scheduler = try await Self.scheduler(of: inGraph)
    for (prompt, options) in [(Self.prompts[0], greedy), (Self.prompts[1], seeded), (Self.prompts[2], greedy), (Self.prompts[3], greedy)] {
      let answer = try await Answer.collect(inGraph, prompt, options)
      #expect(answer.text == (try await Answer.collect(cpuPath, prompt, options)).text, "prompt: \(prompt)")
      #expect(await scheduler.backendSampledSequences == (options == greedy ? [0] : []), "prompt: \(prompt)")
    }
  }

  @Test("backend sampling: after a wide burst, a narrow load detaches the idle sequences' samplers (llama.cpp runs every attached one each step)")
  func idleBackendSamplersDetached() async throws {
    let inGraph = try batchedModel(sequences: 4, backendSampling: true)
    let scheduler = try await Self.scheduler(of: inGraph)
    let short = GenerationOptions(sampling: .greedy, maximumResponseTokens: 4)
    let burst = try await Self.promptTokens(Array(Self.prompts.prefix(4)), short)
    var first: [Answer] = []
    for stream in await Self.submitTogether(burst, short, to: scheduler) { first.append(try await Answer.collect(stream)) }
    #expect(await scheduler.backendSampledSequences.count == 4)

    // One stream for more than idleSamplerSteps steps: the three idle chains go; its own stays.
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: BatchScheduler.idleSamplerSteps + 24)
    let before = await scheduler.statistics
    let long = try await Answer.collect(inGraph, "Write a long story about a dragon.", story)
    try #require(long.response.usage.outputTokens > BatchScheduler.idleSamplerSteps + 1, "the answer ran long enough")
    #expect(await scheduler.statistics.since(before).samplersDetached == 3)
    #expect(await scheduler.backendSampledSequences.count == 1)
    #expect(long.text == (try await Answer.collect(try batchedModel(sequences: 1), "Write a long story about a dragon.", story)).text)
    // A wide load attaches new chains, and answers as before.
    var again: [Answer] = []
    for stream in await Self.submitTogether(burst, short, to: scheduler) { again.append(try await Answer.collect(stream)) }
    #expect(await scheduler.backendSampledSequences.count == 4)
    #expect(again.map(\.text) == first.map(\.text))
  }

  @Test("backend sampling with prompt caches: requests one at a time go to the sequence whose chain is attached, not round the others (each attach re-reserves llama.cpp's graphs)")
  func requestsReuseAttachedSamplers() async throws {
    let inGraph = try batchedModel(sequences: 4, reusesPromptPrefixes: true, backendSampling: true)
    let scheduler = try await Self.scheduler(of: inGraph)
    let short = GenerationOptions(sampling: .greedy, maximumResponseTokens: 4)
    _ = try await Answer.collectConcurrently(inGraph, Array(Self.prompts.prefix(4)), short)
    #expect(await scheduler.backendSampledSequences.count == 4)
    // A long answer alone: the three idle chains are detached.
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: BatchScheduler.idleSamplerSteps + 24)
    _ = try await Answer.collect(inGraph, "Write a long story about a dragon.", story)
    #expect(await scheduler.backendSampledSequences.count == 1)

    let before = await scheduler.statistics
    let cpuPath = try batchedModel(sequences: 1)
    for prompt in ["Name two planets.", "Say hello in French.", "Name a fruit."] {
      let answer = try await Answer.collect(inGraph, prompt, short)
      #expect(answer.text == (try await Answer.collect(cpuPath, prompt, short)).text, "prompt: \(prompt)")
    }
    // A sampled request takes a sequence without a chain, so the attached one stays.
    let seeded = GenerationOptions(sampling: .random(top: 40, seed: 7), temperature: 0.8, maximumResponseTokens: 4)
    _ = try await Answer.collect(inGraph, "Name a color.", seeded)
    let done = await scheduler.statistics.since(before)
    #expect(done.samplersAttached == 0 && done.samplersDetached == 0, "\(done.summary)")
    #expect(await scheduler.backendSampledSequences.count == 1)
  }

  @Test("4 concurrent greedy requests each give the text they give alone")
  func concurrentRequestsMatchSolo() async throws {
    let model = try batchedModel(sequences: 4)
    let prompts = Array(Self.prompts.prefix(4))
    var solo: [String] = []
    for prompt in prompts { solo.append(try await Answer.collect(model, prompt, TestModel.greedy).text) }
    _ = try await expectSoloTextUnderLoad(model, prompts, solo: solo)
  }

  /// Sends `prompts` all at once (their prompts are evaluated together, then they decode
  /// together), then staggered (the others arrive while the first one is decoding), and expects
  /// each answer to be its `solo` text. Returns the answers of both rounds.
  func expectSoloTextUnderLoad(_ model: BatchedLanguageModel, _ prompts: [String], solo: [String]) async throws -> [Answer] {
    let together = try await Answer.collectConcurrently(model, prompts, TestModel.greedy)
    #expect(together.map(\.text) == solo)

    let first = Answer.Recorder()
    let firstTask = Task { try await Answer.collect(model, prompts[0], TestModel.greedy, recorder: first) }
    while first.deltas == 0 { try await Task.sleep(for: .milliseconds(2)) }
    let others = try await Answer.collectConcurrently(model, Array(prompts.dropFirst()), TestModel.greedy)
    let firstAnswer = try await firstTask.value
    #expect(firstAnswer.text == solo[0])
    #expect(others.map(\.text) == Array(solo.dropFirst()))
    return together + [firstAnswer] + others
  }

  @Test("a prompt evaluated in chunks while others decode gives SystemLanguageModel's text", arguments: [512, 64])
  func longPromptUnderLoad(batchSize: Int) async throws {
    _ = try TestModel.requireModel()
    // About 200 tokens: under load it is evaluated in several chunks (and, with a batch size of 64,
    // in several segments); prompt and answer stay under 256 tokens (see BatchScheduler).
    let prompt = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 17) + "What did the fox do?"
    let system = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, batchSize: batchSize))
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 4, contextSizePerSequence: 2048, batchSize: batchSize))
    let expected = try await Answer.collect(system, prompt, TestModel.greedy)
    #expect(expected.response.usage.promptTokens > 160 && expected.response.usage.promptTokens < 220)
    #expect(try await Answer.collect(model, prompt, TestModel.greedy).text == expected.text)

    // Two streams decode while the long prompt arrives.
    let busy = [Answer.Recorder(), Answer.Recorder()]
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 120)
    let others = busy.map { recorder in
      Task { try await Answer.collect(model, "Write a long story about a dragon.", long, recorder: recorder) }
    }
    while busy.contains(where: { $0.deltas == 0 }) { try await Task.sleep(for: .milliseconds(2)) }
    let underLoad = try await Answer.collect(model, prompt, TestModel.greedy)
    #expect(busy.allSatisfy { !$0.completed }, "the other streams should still be decoding")
    #expect(underLoad.text == expected.text)
    #expect(underLoad.response.usage.promptTokens == expected.response.usage.promptTokens)
    // Their job is done: the rest of their answers would only cost time.
    for task in others { task.cancel() }
    for task in others { _ = try? await task.value }
  }

  @Test("throughput prompt scheduling: one llama.cpp call a step, prompts beside the decoding tokens, each answer the one it gets alone",
        arguments: [512, 16])
  func throughputPromptScheduling(batchSize: Int) async throws {
    _ = try TestModel.requireModel()
    // With a batch size of 16 a call holds 64 tokens, less than two prompts: prompts go in parts.
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 4, contextSizePerSequence: 2048, batchSize: batchSize, promptScheduling: .throughput))
    let prompts = Array(Self.prompts.prefix(4))
    var solo: [String] = []
    for prompt in prompts { solo.append(try await Answer.collect(model, prompt, TestModel.greedy).text) }
    // Prompts under 64 tokens meet the same attention kernel in any pass (see BatchScheduler), so
    // the answers are the reproducible mode's too.
    #expect(solo == (try await Answer.collectConcurrently(try batchedModel(), prompts, TestModel.greedy)).map(\.text))

    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let scheduler = try model.scheduler(for: weights)
    let before = await scheduler.statistics
    // Staggered, three prompts join the steps of the first one's decoding.
    let answers = try await expectSoloTextUnderLoad(model, prompts, solo: solo)

    let done = await scheduler.statistics.since(before)
    let answerTokens = answers.reduce(0) { $0 + $1.response.usage.outputTokens }
    #expect(done.decodeCalls <= done.steps, "at most one call a step: \(done.summary)")
    #expect(done.answerTokens >= answerTokens - answers.count, "every answer token but the last of each was decoded in a step: \(done.summary)")
    #expect(done.launchTime > .zero && done.stepTime >= done.decodeTime)
  }

  @Test("sixteen greedy requests at once: their tokens chosen by one scan of their rows on several threads, each answer the one it gets alone")
  func greedyRowsScannedTogether() async throws {
    let model = try batchedModel(sequences: 16)
    let prompts = Self.prompts + [
      "Name two planets.", "Say hello in French.", "Count from one to five.", "Name a fruit.", "What is two plus two?",
      "Name a color of the rainbow.", "Say goodbye in Spanish.", "Name a large ocean.", "What day follows Monday?",
      "Name a musical instrument.", "Name a month of summer.",
    ]
    let short = GenerationOptions(sampling: .greedy, maximumResponseTokens: 6)
    var solo: [String] = []
    for prompt in prompts { solo.append(try await Answer.collect(model, prompt, short).text) }
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let before = try await model.scheduler(for: weights).statistics
    let together = try await Answer.collectConcurrently(model, prompts, short)
    let done = try await model.scheduler(for: weights).statistics.since(before)
    #expect(done.rowsScannedTogether >= LargestLogit.parallelRows, "\(done.summary)")
    #expect(together.map(\.text) == solo)
  }

  @Test("more requests than sequences wait their turn and all complete correctly")
  func queueBeyondMaxSequences() async throws {
    let model = try batchedModel(sequences: 2)
    var solo: [String] = []
    for prompt in Self.prompts { solo.append(try await Answer.collect(model, prompt, TestModel.greedy).text) }
    let together = try await Answer.collectConcurrently(model, Self.prompts, TestModel.greedy)
    #expect(together.map(\.text) == solo)
    #expect(together.allSatisfy { $0.response.usage.outputTokens > 0 })
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    let load = try await model.scheduler(for: weights).load
    #expect(load.active == 0 && load.waiting == 0)
  }

  @Test("cancelling one stream stops it promptly and frees its sequence; the others complete")
  func cancelOneStream() async throws {
    let model = try batchedModel(sequences: 4)
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    let scheduler = try model.scheduler(for: weights)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 160)
    let prompt = "Write a very long essay about the history of computing."
    let expected = try await Answer.collect(model, "Write a long story about a dragon.", long)

    let cancelled = Answer.Recorder()
    let victim = Task { try await Answer.collect(model, prompt, long, recorder: cancelled) }
    let survivors = Task {
      try await Answer.collectConcurrently(model, Array(repeating: "Write a long story about a dragon.", count: 2), long)
    }
    while true {
      let active = await scheduler.load.active
      if cancelled.deltas >= 3, active == 3 { break }
      try await Task.sleep(for: .milliseconds(2))
    }
    let deltasAtCancel = cancelled.deltas
    victim.cancel()
    // Its sequence leaves at the next step, long before the survivors' 160 tokens are done.
    var polls = 0
    while await scheduler.load.active > 2, polls < 5000 {
      try await Task.sleep(for: .milliseconds(1))
      polls += 1
    }
    #expect(await scheduler.load.active == 2, "the survivors are still decoding; the victim is gone")
    _ = try? await victim.value
    #expect(cancelled.deltas <= deltasAtCancel + 1)
    #expect(cancelled.completed == false)

    let finished = try await survivors.value
    for answer in finished {
      #expect(answer.text == expected.text)
      #expect(answer.response.usage.outputTokens == expected.response.usage.outputTokens)
    }
    #expect(await scheduler.load.active == 0)
    // The freed sequence is clean: a new request there gives the usual answer.
    let next = try await Answer.collect(model, Self.prompts[0], TestModel.greedy)
    let alone = try await Answer.collect(try TestModel.requireModel(), Self.prompts[0], TestModel.greedy)
    #expect(next.text == alone.text)
  }

  @Test("maximumResponseTokens ends with maxTokens and the exact token count", arguments: schedulings)
  func maxTokens(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(promptScheduling: scheduling)
    let answer = try await Answer.collect(
      model, "Write a long story about a dragon.", GenerationOptions(sampling: .greedy, maximumResponseTokens: 5))
    #expect(answer.response.usage.outputTokens == 5)
    #expect(answer.response.finishReason == .maxTokens)
    #expect(answer.response.timings?.generatedTokens == 5)
    #expect(answer.response.usage.cachedPromptTokens == 0)
    let words = answer.text.split(separator: " ").count
    #expect(words >= 2 && words <= 5, "five tokens of text, the last one's too: \(answer.text)")
  }

  @Test("the model ending its turn gives finishReason stop", arguments: schedulings)
  func endOfTurn(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(promptScheduling: scheduling)
    let answer = try await Answer.collect(
      model, Self.prompts[0], GenerationOptions(sampling: .greedy, maximumResponseTokens: 64))
    #expect(answer.response.finishReason == .stop)
    #expect(answer.response.usage.outputTokens < 64)
    #expect(!answer.text.isEmpty)
    #expect(answer.text == (try await Answer.collect(try TestModel.requireModel(), Self.prompts[0],
                                                     GenerationOptions(sampling: .greedy, maximumResponseTokens: 64))).text)
  }

  @Test("a stop sequence ends the answer before it, as with SystemLanguageModel", arguments: schedulings)
  func stopSequence(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(promptScheduling: scheduling)
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 40)
    let prompt = "Write two sentences about the sea."
    let full = try await Answer.collect(model, prompt, options).text
    let words = full.split(separator: " ")
    try #require(words.count >= 4, "need a longer answer to pick a stop word from: \(full)")
    let stopWord = String(words[words.count / 2])
    var stopping = options
    stopping.stopSequences = [stopWord]
    let stopped = try await Answer.collect(model, prompt, stopping)
    #expect(stopped.text == String(full[..<full.range(of: stopWord)!.lowerBound]))
    #expect(stopped.response.finishReason == .stop)
    let system = try await Answer.collect(try TestModel.requireModel(), prompt, stopping)
    #expect(stopped.text == system.text)
    #expect(stopped.response.usage.outputTokens == system.response.usage.outputTokens)
  }

  @Test("seeded random sampling gives SystemLanguageModel's text")
  func seededSampling() async throws {
    let model = try batchedModel()
    let system = try TestModel.requireModel()
    for sampling in [GenerationOptions.SamplingMode.random(top: 20, seed: 7), .random(probabilityThreshold: 0.9, seed: 7)] {
      let options = GenerationOptions(sampling: sampling, temperature: 0.9, maximumResponseTokens: 24)
      let batched = try await Answer.collect(model, "Tell me about cats.", options)
      let alone = try await Answer.collect(system, "Tell me about cats.", options)
      #expect(batched.text == alone.text, "\(sampling)")
    }
  }

  @Test("seeded random requests sampled side by side on several threads give SystemLanguageModel's texts",
        arguments: schedulings)
  func seededSamplingSideBySide(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(sequences: 4, promptScheduling: scheduling)
    let system = try TestModel.requireModel()
    let scheduler = try await Self.scheduler(of: model)
    // Nucleus (the default chain), and top-k with a repetition penalty (a chain that remembers
    // the answer: the token kept must be accepted).
    let chains = [GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: 7), temperature: 0.9, maximumResponseTokens: 16),
                  GenerationOptions(sampling: .random(top: 20, seed: 11), temperature: 1.0, maximumResponseTokens: 16,
                                    repetitionPenalty: 1.3)]
    for options in chains {
      let prompts = Array(Self.prompts.prefix(4))
      var alone: [String] = []
      for prompt in prompts { alone.append(try await Answer.collect(system, prompt, options).text) }
      let before = await scheduler.statistics
      let together = try await Answer.collectConcurrently(model, prompts, options)
      let done = await scheduler.statistics.since(before)
      #expect(together.map(\.text) == alone, "\(options)")
      #expect(done.rowsSampledTogether > 0, "the rows were sampled side by side: \(done.summary)")
    }
  }

  @Test("a full sequence context ends with contextWindowFull")
  func contextWindowFull() async throws {
    let prompt = "Write a long story about a dragon."
    let promptTokens = try await batchedModel().tokenCount(for: Answer.transcript(prompt))
    let model = try batchedModel(contextSizePerSequence: promptTokens + 6)
    let answer = try await Answer.collect(model, prompt, GenerationOptions(sampling: .greedy, maximumResponseTokens: 100))
    #expect(answer.response.finishReason == .contextWindowFull)
    #expect(answer.response.usage.outputTokens == 6)
  }

  @Test("tokenCount is the prompt token count a request reports")
  func tokenCountMatchesUsage() async throws {
    let model = try batchedModel()
    var transcript = Answer.transcript(Self.prompts[1])
    transcript.append(.response(.init(text: "Paris is the capital of France.")))
    transcript.append(.prompt(.init(text: "And of Italy?")))
    let count = try await model.tokenCount(for: transcript)
    var reported: RawResponse?
    for try await event in model.generate(GenerationRequest(transcript: transcript, options: TestModel.greedy)) {
      if case .completed(let response) = event { reported = response }
    }
    #expect(count > 0)
    #expect(reported?.usage.promptTokens == count)
  }

  @Test("a prompt longer than a sequence's context: supports() refuses and generate throws")
  func contextOverflow() async throws {
    let model = try batchedModel(contextSizePerSequence: 128)
    let prompt = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 60)
    let request = GenerationRequest(transcript: Answer.transcript(prompt), options: TestModel.greedy)
    guard case .unsupported(.exceedsContextWindow(let tokens, let context)) = await model.supports(request) else {
      Issue.record("supports() should report the overflow")
      return
    }
    #expect(tokens > 128 && context == 128)
    var thrown: (any Error)?
    do { for try await _ in model.generate(request) {} } catch { thrown = error }
    #expect(thrown as? GenerationError == .exceededContextWindowSize(promptTokens: tokens, contextSize: 128))
    #expect(await model.supports(GenerationRequest(transcript: Answer.transcript("Hi"), options: TestModel.greedy)) == .supported)
  }

  @Test("shutDown ends the streams in flight and the waiting ones with shuttingDown, and refuses new requests")
  func shutDownEndsStreams() async throws {
    let model = try batchedModel(sequences: 1)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 400)
    let decoding = Answer.Recorder()
    let first = Task { try await Answer.collect(model, "Write a long story about a dragon.", long, recorder: decoding) }
    while decoding.deltas == 0 { try await Task.sleep(for: .milliseconds(2)) }
    // The second request waits for the only sequence.
    let queued = Task { try await Answer.collect(model, "Write a long story about a knight.", long) }
    let scheduler = try await model.scheduler(for: LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement()))
    while await scheduler.load.waiting == 0 { try await Task.sleep(for: .milliseconds(2)) }
    await model.shutDown()
    await #expect(throws: OnDeviceModelError.shuttingDown) { try await first.value }
    await #expect(throws: OnDeviceModelError.shuttingDown) { try await queued.value }
    #expect(!decoding.completed)
    await #expect(throws: OnDeviceModelError.shuttingDown) { try await Answer.collect(model, "Hi", TestModel.greedy) }
  }

  @Test("a failed llama_decode fails the requests in that batch with a typed error; later requests work")
  func decodeFailure() async throws {
    let model = try batchedModel()
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    let scheduler = try model.scheduler(for: weights)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 200)
    let recorders = [Answer.Recorder(), Answer.Recorder()]
    let tasks = recorders.map { recorder in
      Task { try await Answer.collect(model, "Write a long story about a dragon.", long, recorder: recorder) }
    }
    while recorders.contains(where: { $0.deltas == 0 }) { try await Task.sleep(for: .milliseconds(2)) }
    await scheduler.injectDecodeFailure(code: -3)
    for task in tasks {
      await #expect(throws: OnDeviceModelError.decodeFailed(code: -3)) { try await task.value }
    }
    #expect(await scheduler.load.active == 0)
    let after = try await Answer.collect(model, Self.prompts[0], TestModel.greedy)
    let alone = try await Answer.collect(try TestModel.requireModel(), Self.prompts[0], TestModel.greedy)
    #expect(after.text == alone.text)
  }
}

/// A collected answer stream.
struct Answer: Sendable {
  var text: String
  var response: RawResponse

  /// Counts what a stream delivered so far, readable from another task.
  final class Recorder: Sendable {
    private let state = Mutex((deltas: 0, completed: false))
    var deltas: Int { state.withLock { $0.deltas } }
    var completed: Bool { state.withLock { $0.completed } }
    func delta() { state.withLock { $0.deltas += 1 } }
    func complete() { state.withLock { $0.completed = true } }
  }

  static func transcript(_ prompt: String) -> Transcript {
    Transcript(entries: [.prompt(.init(text: prompt))])
  }

  static func collect(_ model: some LanguageModel, _ prompt: String, _ options: GenerationOptions,
                      recorder: Recorder = Recorder()) async throws -> Answer {
    try await collect(model.generate(GenerationRequest(transcript: transcript(prompt), options: options)), recorder: recorder)
  }

  /// The answer a stream of generation events delivers.
  static func collect(_ events: AsyncThrowingStream<GenerationEvent, any Error>,
                      recorder: Recorder = Recorder()) async throws -> Answer {
    var text = ""
    var response: RawResponse?
    for try await event in events {
      if case .textDelta(let delta) = event {
        #expect(response == nil, "text after the completed event")
        text += delta
        recorder.delta()
      }
      if case .completed(let completed) = event {
        #expect(response == nil, "two completed events")
        response = completed
        recorder.complete()
      }
    }
    try Task.checkCancellation()
    return Answer(text: text, response: try #require(response))
  }

  /// Reads `request`'s answer up to its third text delta and goes away (which cancels it), then
  /// answers the same request again in the same session state: the second answer.
  static func collectAfterCancelling(_ request: GenerationRequest, on model: some LanguageModel) async throws -> Answer {
    let reader = Task {
      var deltas = 0
      for try await event in model.generate(request) {
        if case .textDelta = event { deltas += 1 }
        if deltas == 3 { return }   // the stream ends here: the request is cancelled
      }
    }
    try await reader.value
    return try await collect(model.generate(request))
  }

  /// Runs the prompts at the same time; answers in the prompts' order.
  static func collectConcurrently(_ model: some LanguageModel, _ prompts: [String],
                                  _ options: GenerationOptions) async throws -> [Answer] {
    try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
      for (index, prompt) in prompts.enumerated() {
        group.addTask { (index, try await collect(model, prompt, options)) }
      }
      var answers = [Answer?](repeating: nil, count: prompts.count)
      for try await (index, answer) in group { answers[index] = answer }
      return answers.map { $0! }
    }
  }
}
