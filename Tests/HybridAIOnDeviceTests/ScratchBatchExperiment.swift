import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

@Suite("ScratchBatchExperiment", .serialized)
struct ScratchBatchExperiment {
  @Test(arguments: [8, 24, 40])
  func fourTogether(tokens: Int) async throws {
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(maxConcurrentSequences: 4, contextSizePerSequence: 2048))
    let prompts = Array(BatchedLanguageModelTests.prompts.prefix(4))
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: tokens)
    var solo: [Answer] = []
    for p in prompts { solo.append(try await Answer.collect(model, p, options)) }
    let together = try await Answer.collectConcurrently(model, prompts, options)
    print("TOKENS \(tokens): outputs \(solo.map(\.response.usage.outputTokens)) equal \(zip(solo, together).map { $0.text == $1.text })")
  }
}
