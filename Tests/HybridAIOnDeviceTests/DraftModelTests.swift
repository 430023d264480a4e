import Foundation
import HybridAI
@testable import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// Speculative decoding with a draft model: a model with another vocabulary is refused by name;
/// SmolLM2 drafting for itself (drafts mostly taken) and a random model drafting for another with
/// the same vocabulary (drafts mostly rejected, so rejected tokens keep leaving both caches) answer
/// exactly what the model answers alone — in a session and batched, greedy and sampled with a
/// seed, and after a request cancelled mid-draft.
@Suite("Speculative decoding with a draft model")
struct DraftModelTests {
  static let pairs = TestRepository.dependency("models/pairs")
  static let prompt = "Write a short poem about the sea."
  static let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 40)

  static func drafting(from path: String, minimumProbability: Double = 0) -> SpeculativeDecoding {
    SpeculativeDecoding(draftModelPath: path, minimumDraftProbability: minimumProbability)
  }

  static func systemModel(_ path: String, _ speculation: SpeculativeDecoding) -> SystemLanguageModel {
    SystemLanguageModel(modelPath: path, configuration: .init(contextSize: 1024, speculation: speculation))
  }

  static func batchedModel(_ path: String, _ speculation: SpeculativeDecoding) -> BatchedLanguageModel {
    BatchedLanguageModel(modelPath: path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 1024, speculation: speculation))
  }

  /// The reason of the ``OnDeviceModelError/invalidDraftModel(path:reason:)`` a generation throws.
  static func refusal(of draft: String, for model: String) async throws -> String? {
    do {
      _ = try await Answer.collect(systemModel(model, drafting(from: draft)), prompt, greedy)
      return nil
    } catch OnDeviceModelError.invalidDraftModel(let path, let reason) {
      #expect(path == draft)
      return reason
    }
  }

  @Test("a draft model without the model's vocabulary is refused at load, naming the difference")
  func otherVocabularies() async throws {
    _ = try TestModel.requireModel()
    let gemma = TestRepository.dependency("models/gemma-3-270m-q4_k_m.gguf").path
    let tiny = Self.pairs.appending(path: "vision/model.gguf").path
    let tinyForAudio = Self.pairs.appending(path: "audio/model.gguf").path
    let tokenizer = try await Self.refusal(of: gemma, for: TestModel.path)
    #expect(tokenizer?.contains("its tokenizer is SentencePiece (SPM), the model's byte-level BPE") == true, "\(tokenizer ?? "")")
    let size = try await Self.refusal(of: tiny, for: TestModel.path)
    #expect(size?.contains("tokens, the model's 49152") == true, "\(size ?? "")")
    let token = try await Self.refusal(of: tinyForAudio, for: tiny)
    #expect(token?.contains("token 260 is \"<|audio_bos|>\" there") == true, "\(token ?? "")")
    let missing = try await Self.refusal(of: "/nonexistent/draft.gguf", for: TestModel.path)
    #expect(missing == "there is no file there")
    // Batched too, and the model still answers without one afterwards.
    await #expect(throws: OnDeviceModelError.self) {
      try await Answer.collect(Self.batchedModel(TestModel.path, Self.drafting(from: gemma)), Self.prompt, Self.greedy)
    }
    let plain = try await Answer.collect(Self.systemModel(TestModel.path, .ngram), Self.prompt, Self.greedy)
    #expect(!plain.text.isEmpty)
  }

  @Test("SmolLM2 drafting for itself: most drafts taken, the same answers in a session and batched, greedy and seeded")
  func agreeingDraftModel() async throws {
    _ = try TestModel.requireModel()
    let draft = Self.drafting(from: TestModel.path)
    let plain = try await Answer.collect(Self.systemModel(TestModel.path, .off), Self.prompt, Self.greedy)
    let session = try await Answer.collect(Self.systemModel(TestModel.path, draft), Self.prompt, Self.greedy)
    #expect(session.text == plain.text)
    let usage = session.response.usage
    #expect(usage.draftTokens > usage.outputTokens / 2, "\(usage)")
    #expect(usage.acceptedDraftTokens > usage.draftTokens / 2, "\(usage)")
    let batched = try await Answer.collect(Self.batchedModel(TestModel.path, draft), Self.prompt, Self.greedy)
    #expect(batched.text == plain.text)
    #expect(batched.response.usage.acceptedDraftTokens > 0, "\(batched.response.usage)")

    let seeded = GenerationOptions(sampling: .random(top: 40, seed: 11), temperature: 0.4, maximumResponseTokens: 40)
    let sampled = try await Answer.collect(Self.systemModel(TestModel.path, .off), Self.prompt, seeded)
    let sampledWithDrafts = try await Answer.collect(Self.systemModel(TestModel.path, draft), Self.prompt, seeded)
    #expect(sampledWithDrafts.text == sampled.text)
    #expect(sampledWithDrafts.response.usage.acceptedDraftTokens > 0, "\(sampledWithDrafts.response.usage)")
  }

  @Test("a draft model that rarely agrees: its rejected drafts leave both caches and the answers do not change, also after a cancelled request")
  func disagreeingDraftModel() async throws {
    let model = Self.pairs.appending(path: "vision/model.gguf").path
    let draft = Self.drafting(from: Self.pairs.appending(path: "vision-reseeded/model.gguf").path)
    let prompt = "hello there, how are you today?"
    let expected = try await Answer.collect(Self.systemModel(model, .off), prompt, Self.greedy)
    for speculative in [Self.systemModel(model, draft) as any LanguageModel, Self.batchedModel(model, draft)] {
      let answer = try await Answer.collect(speculative, prompt, Self.greedy)
      #expect(answer.text == expected.text, "\(type(of: speculative))")
      let usage = answer.response.usage
      #expect(usage.draftTokens > usage.acceptedDraftTokens, "\(usage)")

      // One session state: the second request continues in the first one's contexts.
      let request = GenerationRequest(transcript: Answer.transcript(prompt), options: Self.greedy, sessionState: ModelStateStore())
      let again = try await Answer.collectAfterCancelling(request, on: speculative)
      #expect(again.text == expected.text, "\(type(of: speculative))")
    }
  }
}
