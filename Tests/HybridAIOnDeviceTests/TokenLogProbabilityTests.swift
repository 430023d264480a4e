import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Log probabilities of on-device answers (`GenerationOptions.logProbabilities`), single sequence
/// and batched, on the real model.
@Suite("Token log probabilities on-device")
struct TokenLogProbabilityTests {
  static let prompt = "Name three colors."

  static func options(alternatives: Int?, maximumTokens: Int = 12) -> GenerationOptions {
    var options = GenerationOptions(sampling: .greedy, maximumResponseTokens: maximumTokens)
    options.logProbabilities = alternatives
    return options
  }

  /// What every answer's entries must satisfy: one per answer token, their bytes the answer's,
  /// log probabilities at most 0, alternatives sorted and the greedy choice the first of them.
  static func checkEntries(_ answer: Answer, alternatives: Int) throws -> [TokenLogProbability] {
    let entries = try #require(answer.response.logProbabilities)
    #expect(entries.count == answer.response.usage.outputTokens)
    #expect(String(decoding: entries.flatMap(\.bytes), as: UTF8.self) == answer.text)
    for entry in entries {
      #expect(entry.logProbability <= 0 && entry.logProbability.isFinite, "\(entry)")
      #expect(entry.topAlternatives.count == alternatives)
      let values = entry.topAlternatives.map(\.logProbability)
      #expect(values == values.sorted(by: >), "\(values)")
      #expect(values.map(exp).reduce(0, +) <= 1 + 1e-6)
      if let best = entry.topAlternatives.first {
        #expect(best.bytes == entry.bytes && abs(best.logProbability - entry.logProbability) < 1e-9, "greedy takes the most likely token")
      }
    }
    return entries
  }

  /// Streams `prompt` and checks the `logProbabilities` events: together they are the completion's
  /// entries, and each comes after text holding the start of every token it lists.
  static func checkStreamedEntries(_ model: some LanguageModel, _ prompt: String, _ options: GenerationOptions) async throws {
    var textBytes = 0, listedBytes = 0, streamed: [TokenLogProbability] = [], events = 0
    var completion: RawResponse?
    for try await event in model.generate(GenerationRequest(transcript: Answer.transcript(prompt), options: options)) {
      switch event {
      case .textDelta(let delta): textBytes += delta.utf8.count
      case .logProbabilities(let entries):
        events += 1
        #expect(!entries.isEmpty)
        for entry in entries {
          #expect(listedBytes < textBytes, "a token is listed only after text that holds its start")
          listedBytes += entry.bytes.count
        }
        streamed += entries
      case .completed(let raw): completion = raw
      default: break
      }
    }
    let all = try #require(completion?.logProbabilities)
    #expect(events >= 1 && streamed == all, "\(streamed.count) streamed of \(all.count)")
  }

  @Test("the top-N scan: largest first, the first index on a tie, NaN and infinities never kept; the exponential sum matches a plain one")
  func scan() {
    let row: [Float] = [1, .nan, 5, 3, 5, -.infinity, .infinity, 2, 4]
    row.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      #expect(TokenLogProbabilityRecorder.largest(3, in: base, count: row.count) == [2, 4, 8])
      #expect(TokenLogProbabilityRecorder.largest(1, in: base, count: row.count) == [2])
      #expect(TokenLogProbabilityRecorder.largest(0, in: base, count: row.count).isEmpty)
      #expect(TokenLogProbabilityRecorder.largest(20, in: base, count: row.count) == [2, 4, 8, 3, 7, 0])
    }
    let long = (0..<5_000).map { Float(sin(Double($0)) * 12) }
    let plain = long.reduce(0.0) { $0 + exp(Double($1 - 12)) }
    let summed = long.withUnsafeBufferPointer { TokenLogProbabilityRecorder.sumOfExponentials($0.baseAddress!, count: $0.count, minus: 12) }
    #expect(abs(summed - plain) / plain < 1e-5, "\(summed) vs \(plain)")
  }

  @Test("streamed: logProbabilities events follow the text they belong to and add up to the completion's entries, single and batched (both schedulings)")
  func streamedEntries() async throws {
    let options = Self.options(alternatives: 1, maximumTokens: 24)
    try await Self.checkStreamedEntries(try TestModel.requireModel(), "Write two sentences about the sea.", options)
    for scheduling in [BatchedLanguageModel.PromptScheduling.reproducible, .throughput] {
      let batched = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(maxConcurrentSequences: 2, contextSizePerSequence: 512,
                                                                                         promptScheduling: scheduling))
      try await Self.checkStreamedEntries(batched, "Write two sentences about the sea.", options)
    }
    // With a stop sequence, the events stop with the text before it.
    var stopping = options
    stopping.stopSequences = [" the"]
    try await Self.checkStreamedEntries(try TestModel.requireModel(), "Write two sentences about the sea.", stopping)
  }

  @Test("a greedy answer's tokens each come with their log probability and the most likely tokens, the text unchanged; 0 lists no alternatives; none unless asked; 21 is refused")
  func systemModel() async throws {
    let model = try TestModel.requireModel()
    let plain = try await Answer.collect(model, Self.prompt, Self.options(alternatives: nil))
    #expect(plain.response.logProbabilities == nil)
    let withThree = try await Answer.collect(model, Self.prompt, Self.options(alternatives: 3))
    #expect(withThree.text == plain.text, "asking changes nothing in the answer")
    let entries = try Self.checkEntries(withThree, alternatives: 3)
    #expect(entries.contains { $0.logProbability < -1e-3 }, "a small model is not certain of every token")
    let chosenOnly = try await Answer.collect(model, Self.prompt, Self.options(alternatives: 0))
    let chosen = try Self.checkEntries(chosenOnly, alternatives: 0)
    #expect(zip(chosen, entries).allSatisfy { $0.bytes == $1.bytes && abs($0.logProbability - $1.logProbability) < 1e-6 })

    await #expect(throws: GenerationError.self) {
      _ = try await Answer.collect(model, Self.prompt, Self.options(alternatives: 21))
    }
  }

  @Test("after a stop sequence, only the tokens of the text before it are listed")
  func stopSequence() async throws {
    let model = try TestModel.requireModel()
    let full = try await Answer.collect(model, "Write two sentences about the sea.", Self.options(alternatives: 2, maximumTokens: 40))
    let words = full.text.split(separator: " ")
    try #require(words.count >= 4, "need a longer answer to pick a stop word from: \(full.text)")
    var options = Self.options(alternatives: 2, maximumTokens: 40)
    // Two words: the second one's tokens begin after the text, so they must be left out.
    options.stopSequences = ["\(words[words.count / 2]) \(words[words.count / 2 + 1])"]
    let stopped = try await Answer.collect(model, "Write two sentences about the sea.", options)
    let entries = try #require(stopped.response.logProbabilities)
    let listed = entries.flatMap(\.bytes)
    #expect(String(decoding: listed, as: UTF8.self).hasPrefix(stopped.text), "\(entries.map(\.token)) vs \(stopped.text)")
    #expect(listed.count - (entries.last?.bytes.count ?? 0) < stopped.text.utf8.count, "no token that starts after the text")
    #expect(entries.count < stopped.response.usage.outputTokens, "the stop sequence's last tokens are left out")
  }

  @Test("the batched model gives the same entries, sampling those requests on the CPU even with backend sampling on")
  func batchedModel() async throws {
    let system = try await Answer.collect(try TestModel.requireModel(), Self.prompt, Self.options(alternatives: 3))
    let batched = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(maxConcurrentSequences: 2, contextSizePerSequence: 512,
                                                                                       backendSampling: true))
    async let withEntries = Answer.collect(batched, Self.prompt, Self.options(alternatives: 3))
    async let without = Answer.collect(batched, "Say hello.", Self.options(alternatives: nil))
    let (answer, other) = try await (withEntries, without)
    #expect(other.response.logProbabilities == nil)
    #expect(answer.text == system.text)
    let entries = try Self.checkEntries(answer, alternatives: 3), expected = try #require(system.response.logProbabilities)
    #expect(entries.map(\.bytes) == expected.map(\.bytes))
    #expect(zip(entries, expected).allSatisfy { abs($0.logProbability - $1.logProbability) < 1e-2 }, "the same distribution, computed in a batch")
  }
}
