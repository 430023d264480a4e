import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// The penalties against repetition with the real model: the loop penalty (llama.cpp's DRY
/// sampler) ends a greedy loop and leaves a list alone, the repetition penalty changes greedy
/// answers, both stay deterministic, the batched engine applies them exactly as a session does,
/// and values out of range are a typed error.
@Suite("Sampling penalties: loops, lists, determinism", .serialized)
struct SamplingPenaltyTests {
  /// SmolLM2-135M decoded greedily repeats one line of this poem over and over.
  static let loopingPrompt = "Write a poem about the sea."
  static let listPrompt = "Count from one to ten in words."

  static func greedy(_ tokens: Int = 80, repetition: Double? = nil, loop: LoopPenalty? = nil) -> GenerationOptions {
    GenerationOptions(sampling: .greedy, maximumResponseTokens: tokens, repetitionPenalty: repetition, loopPenalty: loop)
  }

  /// How often the most repeated non-empty line occurs.
  static func mostRepeatedLine(_ text: String) -> Int {
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    return Dictionary(lines.map { ($0, 1) }, uniquingKeysWith: +).values.max() ?? 0
  }

  @Test("the loop penalty ends a greedy loop, the same way every time")
  func loopPenaltyEndsALoop() async throws {
    let model = try TestModel.requireModel()
    let plain = try await Answer.collect(model, Self.loopingPrompt, Self.greedy()).text
    try #require(Self.mostRepeatedLine(plain) >= 3, "the premise: without a penalty the model loops:\n\(plain)")
    let penalized = try await Answer.collect(model, Self.loopingPrompt, Self.greedy(loop: .standard)).text
    print("loop penalty: most repeated line \(Self.mostRepeatedLine(plain))× → \(Self.mostRepeatedLine(penalized))×")
    #expect(Self.mostRepeatedLine(penalized) == 1, "\(penalized)")
    let again = try await Answer.collect(model, Self.loopingPrompt, Self.greedy(loop: .standard)).text
    #expect(again == penalized, "greedy with a loop penalty is deterministic")
  }

  @Test("the loop penalty leaves an answer without loops exactly as it was; a strong repetition penalty does not")
  func loopPenaltyLeavesAList() async throws {
    let model = try TestModel.requireModel()
    let plain = try await Answer.collect(model, Self.listPrompt, Self.greedy(48)).text
    let looped = try await Answer.collect(model, Self.listPrompt, Self.greedy(48, loop: .standard)).text
    #expect(!plain.isEmpty)
    #expect(looped == plain, "a numbered list repeats tokens but no run of them")
    let repeated = try await Answer.collect(model, Self.listPrompt, Self.greedy(48, repetition: 1.3)).text
    #expect(repeated != plain, "the repetition penalty is applied under greedy sampling")
    let repeatedAgain = try await Answer.collect(model, Self.listPrompt, Self.greedy(48, repetition: 1.3)).text
    #expect(repeatedAgain == repeated, "and deterministic")
  }

  @Test("seeded sampling with penalties repeats itself exactly")
  func seededSamplingWithPenalties() async throws {
    let model = try TestModel.requireModel()
    let options = GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: 7), temperature: 0.8,
                                    maximumResponseTokens: 32, repetitionPenalty: 1.1, loopPenalty: .standard,
                                    frequencyPenalty: 0.2, presencePenalty: 0.2)
    let first = try await Answer.collect(model, Self.loopingPrompt, options).text
    let second = try await Answer.collect(model, Self.loopingPrompt, options).text
    #expect(!first.isEmpty && first == second)
  }

  @Test("the batched engine applies the penalties exactly as a session does (no sampling in the graph)")
  func batchedMatchesSession() async throws {
    let system = try TestModel.requireModel()
    let batched = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 2048))
    for options in [Self.greedy(loop: .standard), Self.greedy(repetition: 1.2)] {
      let expected = try await Answer.collect(system, Self.loopingPrompt, options).text
      let actual = try await Answer.collect(batched, Self.loopingPrompt, options).text
      #expect(actual == expected)
    }
  }

  @Test("penalties out of range are a typed error before anything runs", arguments: [
    GenerationOptions(repetitionPenalty: 0),
    GenerationOptions(frequencyPenalty: 2.5),
    GenerationOptions(presencePenalty: -3),
    GenerationOptions(loopPenalty: LoopPenalty(multiplier: -1)),
    GenerationOptions(loopPenalty: LoopPenalty(multiplier: 0.8, allowedLength: 0)),
  ])
  func outOfRange(_ options: GenerationOptions) async throws {
    let model = try TestModel.requireModel()
    await #expect {
      _ = try await Answer.collect(model, Self.listPrompt, options)
    } throws: { error in
      guard case GenerationError.unsupportedRequest(.other(let reason)) = error else { return false }
      return reason.contains("Penalty")
    }
  }
}
