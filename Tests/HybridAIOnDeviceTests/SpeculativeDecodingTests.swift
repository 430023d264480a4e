import CLlama
import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Speculative decoding: the n-gram drafter and the draft-length policy on their own, then the
/// real SmolLM2 model asked to repeat a text (where drafts are taken) with speculation on and off —
/// the answers must be the same tokens, greedy or sampled with a seed, guided, cut by a stop
/// sequence or the token limit, and after a cancelled request.
@Suite("Speculative decoding: n-gram drafts checked in one pass")
struct SpeculativeDecodingTests {
  static let paragraph = "The old lighthouse stood at the edge of the cliff for more than two hundred years. "
    + "Every night its keeper climbed the narrow stairs, trimmed the wick and polished the great lens until it shone."
  static let rewrite = "Repeat this text exactly:\n\n\(paragraph)"
  static let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 60)

  static func systemModel(_ speculation: SpeculativeDecoding) throws -> SystemLanguageModel {
    _ = try TestModel.requireModel()
    return SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 1024, speculation: speculation))
  }

  static func batchedModel(_ speculation: SpeculativeDecoding) throws -> BatchedLanguageModel {
    _ = try TestModel.requireModel()
    return BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 1024, speculation: speculation))
  }

  // MARK: - Drafting

  @Test("the drafter proposes what followed the earlier place agreeing longest with the end, and how long it agrees")
  func drafter() {
    let drafter = NGramDrafter(shortestMatch: 2)
    // … 2 3 [7 8 …] and … 2 3 at the end agree over two tokens; of equals the latest wins.
    #expect(drafter.draft(from: [1, 2, 3, 4, 5, 9, 2, 3, 7, 8, 6, 2, 3], length: 8)
            == .init(tokens: [7, 8, 6, 2, 3], matchLength: 2))
    // "1 2 3" agrees over three tokens at the start, more than the later "2 3".
    #expect(drafter.draft(from: [1, 2, 3, 4, 5, 9, 2, 3, 7, 8, 1, 2, 3], length: 2) == .init(tokens: [4, 5], matchLength: 3))
    #expect(drafter.draft(from: [1, 2, 3, 4], length: 8) == nil)   // "4" never appeared before
    #expect(drafter.draft(from: [1, 3, 9, 3], length: 8) == nil)   // one token agrees, two are needed
    #expect(drafter.draft(from: [5, 5, 5], length: 4) == .init(tokens: [5], matchLength: 2))   // a run repeats itself
    #expect(drafter.draft(from: [1, 2, 1, 2], length: 0) == nil)
    #expect(drafter.draft(from: [], length: 4) == nil)
  }

  @Test("a draft is no longer than the repeat it continues nor than the adaptive length")
  func draftsFollowTheRepeat() throws {
    let settings = SpeculativeDecoding(maximumDraftTokens: 20, shortestMatch: 3)
    let text: [llama_token] = Array(100..<140)
    func firstDraft(repeating repeated: Range<llama_token>, room: Int = 50) throws -> [llama_token] {
      var speculation = try #require(SequenceSpeculation(settings, prompt: text + Array(repeated), onGPU: false))
      return speculation.draft(room: room)
    }
    #expect(try firstDraft(repeating: 110..<113) == [113, 114, 115])   // 3 tokens repeat: at most 3
    #expect(try firstDraft(repeating: 110..<125) == Array(125..<(125 + llama_token(DraftLengthPolicy.initialLength))))
    #expect(try firstDraft(repeating: 110..<125, room: 2) == [125, 126])
    #expect(try firstDraft(repeating: 137..<139).isEmpty)   // 2 tokens repeat: fewer than 3
    #expect(SequenceSpeculation(.off, prompt: text, onGPU: false) == nil)
  }

  @Test("draft lengths double while drafts are taken whole, shrink when cut, and pause after a failure")
  func draftLengths() {
    var policy = DraftLengthPolicy(maximum: 20, draftTokenCost: SpeculativeDecoding.gpuDraftTokenCost)
    #expect(policy.nextLength() == DraftLengthPolicy.initialLength)
    policy.record(drafted: 4, accepted: 4)
    #expect(policy.nextLength() == 8)
    policy.record(drafted: 8, accepted: 8)
    policy.record(drafted: 16, accepted: 16)
    #expect(policy.nextLength() == 20)   // the maximum
    policy.record(drafted: 20, accepted: 3)
    #expect(policy.nextLength() == 5)
    policy.record(drafted: 5, accepted: 0)   // nothing taken: a pause
    let paused = (0..<DraftLengthPolicy.firstPause).map { _ in policy.nextLength() }
    #expect(paused.allSatisfy { $0 == 0 })
    #expect(policy.nextLength() == DraftLengthPolicy.initialLength)
    policy.record(drafted: 2, accepted: 0)   // a second pause in a row is twice as long
    #expect((0..<2 * DraftLengthPolicy.firstPause).map { _ in policy.nextLength() }.allSatisfy { $0 == 0 })
    #expect(policy.nextLength() > 0)
    var none = DraftLengthPolicy(maximum: 0)
    #expect(none.nextLength() == 0)
  }

  @Test("a draft that kept no more than its tokens cost to check counts as failed: on the CPU under half, on a GPU none")
  func draftsThatDoNotPay() {
    var cpu = DraftLengthPolicy(maximum: 20, draftTokenCost: SpeculativeDecoding.cpuDraftTokenCost)
    cpu.record(drafted: 8, accepted: 5)   // 6 tokens for a pass of 5 steps: it paid
    #expect(cpu.nextLength() == 7)
    cpu.record(drafted: 7, accepted: 3)   // 4 tokens for 4.5 steps: a pause
    #expect((0..<DraftLengthPolicy.firstPause).map { _ in cpu.nextLength() }.allSatisfy { $0 == 0 })
    var gpu = DraftLengthPolicy(maximum: 20, draftTokenCost: SpeculativeDecoding.gpuDraftTokenCost)
    gpu.record(drafted: 7, accepted: 3)
    #expect(gpu.nextLength() == 5)
    #expect(SpeculativeDecoding().draftTokenCost(onGPU: false) == 0.5 && SpeculativeDecoding().draftTokenCost(onGPU: true) == 0.05)
    #expect(SpeculativeDecoding(draftTokenCost: 0.2).draftTokenCost(onGPU: true) == 0.2)
  }

  @Test("drafts fit one pass of fewer than 64 tokens of a sequence and the batch")
  func fitting() {
    #expect(SpeculativeDecoding(maximumDraftTokens: 500).fitting(batchSize: 512).maximumDraftTokens == 62)
    #expect(SpeculativeDecoding(maximumDraftTokens: 500).fitting(batchSize: 16).maximumDraftTokens == 15)
    #expect(SpeculativeDecoding.off.fitting(batchSize: 512).isEnabled == false)
    #expect(SpeculativeDecoding(maximumDraftTokens: -3) == .off)
  }

  // MARK: - The real model

  @Test("a session repeating a text takes drafts and answers the same tokens as without speculation")
  func sessionGreedyIsUnchanged() async throws {
    let plain = try await Answer.collect(Self.systemModel(.off), Self.rewrite, Self.greedy)
    let speculative = try await Answer.collect(Self.systemModel(.ngram), Self.rewrite, Self.greedy)
    #expect(speculative.text == plain.text)
    #expect(plain.text.hasPrefix("The old lighthouse stood"), "\(plain.text)")
    #expect(speculative.response.usage.outputTokens == plain.response.usage.outputTokens)
    #expect(speculative.response.finishReason == plain.response.finishReason)
    let usage = speculative.response.usage
    #expect(usage.acceptedDraftTokens > usage.outputTokens / 2, "\(usage)")
    #expect(usage.draftTokens >= usage.acceptedDraftTokens)
    #expect(plain.response.usage.draftTokens == 0)
  }

  @Test("batched: one request with speculation answers what SystemLanguageModel answers without it")
  func batchedGreedyIsUnchanged() async throws {
    let plain = try await Answer.collect(Self.systemModel(.off), Self.rewrite, Self.greedy)
    let batched = try Self.batchedModel(.ngram)
    let speculative = try await Answer.collect(batched, Self.rewrite, Self.greedy)
    #expect(speculative.text == plain.text)
    #expect(speculative.response.usage.outputTokens == plain.response.usage.outputTokens)
    #expect(speculative.response.usage.acceptedDraftTokens > speculative.response.usage.outputTokens / 2,
            "\(speculative.response.usage)")
    // Two at once share each pass instead: no drafts, the same answers.
    let both = try await Answer.collectConcurrently(batched, [Self.rewrite, Self.rewrite], Self.greedy)
    #expect(both.map(\.text) == [plain.text, plain.text])
  }

  @Test("sampled with a seed, the kept tokens are the model's own draws: the same answer with and without drafts")
  func sampledAnswersKeepTheirDraws() async throws {
    let options = GenerationOptions(sampling: .random(top: 40, seed: 7), temperature: 0.8, maximumResponseTokens: 60)
    let plain = try await Answer.collect(Self.systemModel(.off), Self.rewrite, options)
    let speculative = try await Answer.collect(Self.systemModel(.ngram), Self.rewrite, options)
    #expect(speculative.text == plain.text)
    #expect(speculative.response.usage.acceptedDraftTokens > 0, "\(speculative.response.usage)")
    let batched = try await Answer.collect(Self.batchedModel(.ngram), Self.rewrite, options)
    #expect(batched.text == plain.text)
  }

  @Test("stop sequences, the token limit, log probabilities and guided answers are unchanged by drafts")
  func everythingElseIsUnchanged() async throws {
    let on = try Self.systemModel(.ngram), off = try Self.systemModel(.off)
    var stopping = Self.greedy
    stopping.stopSequences = ["polished"]
    let stopped = try await Answer.collect(on, Self.rewrite, stopping)
    #expect(stopped.text == (try await Answer.collect(off, Self.rewrite, stopping)).text)
    #expect(!stopped.text.contains("polished") && stopped.text.contains("narrow stairs"), "\(stopped.text)")

    let limited = GenerationOptions(sampling: .greedy, maximumResponseTokens: 13)
    let short = try await Answer.collect(on, Self.rewrite, limited)
    #expect(short.response.usage.outputTokens == 13)
    #expect(short.response.finishReason == .maxTokens)
    #expect(short.text == (try await Answer.collect(off, Self.rewrite, limited)).text)

    var logged = Self.greedy
    logged.logProbabilities = 2
    let withDrafts = try await Answer.collect(on, Self.rewrite, logged)
    let without = try await Answer.collect(off, Self.rewrite, logged)
    #expect(withDrafts.response.logProbabilities == without.response.logProbabilities)
    #expect(withDrafts.response.logProbabilities?.count == withDrafts.response.usage.outputTokens)

    let schema = GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["text": ["type": "string"]], "required": ["text"],
    ])
    let format = ResponseFormat(schema: schema)
    let prompt = "Put this text in JSON under \"text\":\n\n\(Self.paragraph)"
    let guided = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: prompt, responseFormat: format))]),
                                   options: Self.greedy, responseFormat: format)
    let guidedOn = try await Answer.collect(on.generate(guided))
    let guidedOff = try await Answer.collect(off.generate(guided))
    #expect(guidedOn.text == guidedOff.text)
    #expect(guidedOn.text.hasPrefix("{"), "\(guidedOn.text)")
  }

  @Test("a request cancelled while its drafts are checked leaves the cache right for the next request")
  func cancelledMidDraft() async throws {
    let expected = try await Answer.collect(Self.systemModel(.off), Self.rewrite, Self.greedy)
    for model in [try Self.systemModel(.ngram) as any LanguageModel, try Self.batchedModel(.ngram)] {
      // One session state: the second request continues in the first one's context.
      let request = GenerationRequest(transcript: Answer.transcript(Self.rewrite), options: Self.greedy,
                                      sessionState: ModelStateStore())
      let again = try await Answer.collectAfterCancelling(request, on: model)
      #expect(again.text == expected.text, "\(type(of: model))")
    }
  }
}
