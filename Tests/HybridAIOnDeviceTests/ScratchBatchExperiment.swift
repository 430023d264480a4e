import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

@Suite("ScratchBatchExperiment", .serialized)
struct ScratchBatchExperiment {
  @Test func pairedWithFiller() async throws {
    let model = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(maxConcurrentSequences: 8, contextSizePerSequence: 2048))
    let prompts = Array(BatchedLanguageModelTests.prompts.prefix(4))
    let filler = GenerationOptions(sampling: .greedy, maximumResponseTokens: 60)
    for prompt in prompts {
      var variants: [String: String] = [:]
      variants["solo"] = try await Answer.collect(model, prompt, TestModel.greedy).text
      for fillers in [1, 3, 6] {
        let answers = try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
          group.addTask { (0, try await Answer.collect(model, prompt, TestModel.greedy)) }
          for i in 0..<fillers { group.addTask { (i + 1, try await Answer.collect(model, "Write a long story about \(["dragons", "a robot", "the moon", "a city", "a king", "a train"][i]).", filler)) } }
          var out: [Int: Answer] = [:]
          for try await (i, a) in group { out[i] = a }
          return out
        }
        variants["with \(fillers)"] = answers[0]!.text
      }
      let distinct = Set(variants.values)
      print("PROMPT \(prompt): \(distinct.count) distinct")
      for (k, v) in variants.sorted(by: { $0.key < $1.key }) { print("  \(k): \(v.debugDescription)") }
    }
  }
}
