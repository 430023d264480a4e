import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// A ``BatchedLanguageModel`` spread over several llama.cpp contexts
/// (``BatchedLanguageModel/Configuration/contexts``): requests go to the least loaded one, answers
/// stay those of one context, and a stop ends them all. SmolLM2-135M, greedy, short answers.
@Suite("BatchedLanguageModel over several contexts")
struct BatchContextsTests {
  static let prompts = Array(BatchedLanguageModelTests.prompts.prefix(4))

  func batchedModel(sequences: Int, contexts: Int?, scheduling: BatchedLanguageModel.PromptScheduling = .throughput)
    throws -> BatchedLanguageModel {
    _ = try TestModel.requireModel()
    return BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: sequences, contextSizePerSequence: 1024, promptScheduling: scheduling, contexts: contexts))
  }

  @Test("sequences are shared out as evenly as they go; contexts are at least one and at most one a sequence")
  func sequencesPerContext() {
    #expect((0..<2).map { BatchedLanguageModel.share(of: 5, for: $0, among: 2) } == [3, 2])
    #expect((0..<3).map { BatchedLanguageModel.share(of: 64, for: $0, among: 3) } == [22, 21, 21])
    #expect(BatchedLanguageModel.contexts(nil, sequences: 8) == 1)
    #expect(BatchedLanguageModel.contexts(0, sequences: 8) == 1)
    #expect(BatchedLanguageModel.contexts(2, sequences: 8) == 2)
    #expect(BatchedLanguageModel.contexts(8, sequences: 4) == 4)
    #expect(BatchedLanguageModel.Configuration(contexts: -3).contexts == 1)
    // The offload planner keeps a compute reserve for each context.
    let two = BatchedLanguageModel(modelPath: "/nonexistent.gguf", configuration: .init(maxConcurrentSequences: 8, contexts: 2))
    #expect(two.singleSession.configuration.contextsSharingWeights == 2)
    let capped = BatchedLanguageModel(modelPath: "/nonexistent.gguf", configuration: .init(maxConcurrentSequences: 2, contexts: 4))
    #expect(capped.contexts == 2 && capped.singleSession.configuration.contextsSharingWeights == 2)
  }

  @Test("two contexts, throughput scheduling: requests together spread over both, each answer the one it gets alone")
  func requestsSpreadOverContexts() async throws {
    let model = try batchedModel(sequences: 4, contexts: 2)
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let lanes = try model.lanes(for: weights)
    #expect(lanes.count == 2)
    #expect(lanes.map { $0.scheduler.settings.maxSequences } == [2, 2])
    #expect(lanes.allSatisfy { $0.scheduler.settings.yieldsWhileComputing })
    try await model.prewarm()
    for lane in lanes { #expect(await lane.scheduler.hasContext, "prewarm made every context") }

    var solo: [String] = []
    for prompt in Self.prompts { solo.append(try await Answer.collect(model, prompt, TestModel.greedy).text) }
    var before: [BatchStatistics] = []
    for lane in lanes { before.append(await lane.scheduler.statistics) }
    let together = try await Answer.collectConcurrently(model, Self.prompts, TestModel.greedy)
    #expect(together.map(\.text) == solo)
    #expect(Set(together.map(\.text)).count > 1, "different prompts, different answers")
    for (lane, earlier) in zip(lanes, before) {
      let done = await lane.scheduler.statistics.since(earlier)
      #expect(done.answerTokens > 0, "every context answered some of them: \(done.summary)")
      #expect(await lane.scheduler.load == (0, 0))
      #expect(lane.requests == 0, "ended requests are no longer counted")
    }
    #expect(await model.occupancy() == BatchOccupancy(active: 0, waiting: 0))
  }

  @Test("more requests than sequences over two contexts wait their turn and each gets its answer", arguments: [
    BatchedLanguageModel.PromptScheduling.reproducible, .throughput,
  ])
  func queueAcrossContexts(scheduling: BatchedLanguageModel.PromptScheduling) async throws {
    let model = try batchedModel(sequences: 2, contexts: 2, scheduling: scheduling)
    let prompts = BatchedLanguageModelTests.prompts
    let alone = try batchedModel(sequences: 1, contexts: nil, scheduling: scheduling)
    var solo: [String] = []
    for prompt in prompts { solo.append(try await Answer.collect(alone, prompt, TestModel.greedy).text) }
    let together = try await Answer.collectConcurrently(model, prompts, TestModel.greedy)
    #expect(together.map(\.text) == solo)
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    #expect(try model.lanes(for: weights).allSatisfy { $0.requests == 0 })
  }

  @Test("a cancelled request leaves its context's count; the next request goes to the context with fewer")
  func cancelledRequestLeavesItsContext() async throws {
    let model = try batchedModel(sequences: 4, contexts: 2)
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let lanes = try model.lanes(for: weights)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 300)
    let recorder = Answer.Recorder()
    let first = Task { try await Answer.collect(model, "Write a long story about a dragon.", long, recorder: recorder) }
    while recorder.deltas == 0 { try await Task.sleep(for: .milliseconds(2)) }
    #expect(lanes.map(\.requests) == [1, 0])
    // The second goes to the idle context.
    let second = try await Answer.collect(model, Self.prompts[0], TestModel.greedy)
    #expect(!second.text.isEmpty)
    #expect(await lanes[1].scheduler.statistics.answerTokens > 0)
    first.cancel()
    _ = try? await first.value
    var polls = 0
    while lanes[0].requests > 0, polls < 2000 {
      try await Task.sleep(for: .milliseconds(1))
      polls += 1
    }
    #expect(lanes.map(\.requests) == [0, 0])
  }

  @Test("shutDown with both contexts decoding ends every stream with shuttingDown and frees both contexts")
  func shutDownEndsBothContexts() async throws {
    let model = try batchedModel(sequences: 2, contexts: 2)
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 400)
    let recorders = [Answer.Recorder(), Answer.Recorder()]
    let tasks = zip(["Write a long story about a dragon.", "Write a long story about a knight."], recorders).map { prompt, recorder in
      Task { try await Answer.collect(model, prompt, long, recorder: recorder) }
    }
    while recorders.contains(where: { $0.deltas == 0 }) { try await Task.sleep(for: .milliseconds(2)) }
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let schedulers = try model.schedulers(for: weights)
    for scheduler in schedulers { #expect(await scheduler.load.active == 1, "one request in each context") }
    await model.shutDown()
    for task in tasks {
      await #expect(throws: OnDeviceModelError.shuttingDown) { try await task.value }
    }
    for scheduler in schedulers { #expect(await !scheduler.hasContext) }
    await #expect(throws: OnDeviceModelError.shuttingDown) { try await Answer.collect(model, "Hi", TestModel.greedy) }
  }
}

extension BatchContextsTests {
  @Test("with prompt prefix reuse, a request goes to the context holding its start when the loads are equal; a busier one does not get it")
  func conversationReturnsToItsContext() async throws {
    _ = try TestModel.requireModel()
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 1024, reusesPromptPrefixes: true, promptScheduling: .throughput,
      contexts: 2))
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path, placement: model.placement())
    let lanes = try model.lanes(for: weights)
    let story = GenerationOptions(sampling: .greedy, maximumResponseTokens: 24)
    // Together: one in each context.
    let pair = try await Answer.collectConcurrently(model, ["Write a story about a dragon.", "Name four farm animals."], story)
    #expect(pair.allSatisfy { $0.response.usage.cachedPromptTokens == 0 })
    // Alone, each prompt again: to the context that holds it (one of them is in the second),
    // all but its last token cached.
    for prompt in ["Name four farm animals.", "Write a story about a dragon."] {
      let again = try await Answer.collect(model, prompt, story)
      #expect(again.response.usage.cachedPromptTokens == again.response.usage.promptTokens - 1, "\(prompt)")
    }

    // While context 0 or 1 is busy with a long answer, the same prompt goes to the idle one.
    let long = GenerationOptions(sampling: .greedy, maximumResponseTokens: 300)
    let recorder = Answer.Recorder()
    let busy = Task { try await Answer.collect(model, "Write a long story about a knight.", long, recorder: recorder) }
    while recorder.deltas == 0 { try await Task.sleep(for: .milliseconds(2)) }
    let loads = lanes.map(\.requests)
    #expect(loads.sorted() == [0, 1])
    let idle = loads.firstIndex(of: 0)!
    let before = await lanes[idle].scheduler.statistics.answerTokens
    _ = try await Answer.collect(model, "Name four farm animals.", story)
    #expect(await lanes[idle].scheduler.statistics.answerTokens > before, "the idle context answered it")
    busy.cancel()
    _ = try? await busy.value
  }
}
