import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Context policies with the real SmolLM2 at a real (small, configured) context window: a long
/// conversation that outgrows it fails, rolls, or is summarized by the model itself.
@Suite("Context policies on device", .serialized)
struct ContextPolicyTests {
  static let window = 320
  static let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 16)

  static func model() throws -> SystemLanguageModel {
    SystemLanguageModel(modelPath: try TestModel.requireModel().modelPath, configuration: .init(contextSize: window))
  }

  /// A prompt of roughly 90 tokens about `topic`.
  static func longPrompt(_ topic: String) -> String {
    "Here are some notes about \(topic). " + String(repeating: "The \(topic) is large and very old. ", count: 10)
      + "Say one word about \(topic)."
  }

  @Test("fail (the default): a conversation that outgrows the window throws, and the transcript is kept")
  func failPolicy() async throws {
    let session = GenerativeModelSession(model: try Self.model(), instructions: "Answer briefly.")
    var answered = 0
    do {
      for topic in ["forest", "river", "mountain", "desert"] {
        try await session.respond(to: Self.longPrompt(topic), options: Self.options)
        answered += 1
      }
      Issue.record("four long turns fitted a \(Self.window)-token window")
    } catch GenerationError.exceededContextWindowSize(let used, let limit) {
      #expect(limit == Self.window)
      #expect(used > limit)
    }
    #expect(answered >= 1)
    #expect(session.transcript.count == 1 + 2 * answered, "the failed turn added nothing")
  }

  @Test("rollingWindow drops the oldest turns, keeps the instructions, and reports it")
  func rollingWindow() async throws {
    let model = try Self.model()
    let session = GenerativeModelSession(model: model, instructions: "Answer briefly.", contextPolicy: .rollingWindow)
    var compactions: [ContextCompaction] = []
    for topic in ["forest", "river", "mountain", "desert", "ocean"] {
      let response = try await session.respond(to: Self.longPrompt(topic), options: Self.options)
      if let compaction = response.contextCompaction {
        compactions.append(compaction)
        #expect(compaction.contextSize == Self.window)
        #expect(compaction.promptTokensBefore > Self.window)
        #expect(compaction.promptTokensAfter == response.usage.promptTokens)
        #expect(response.usage.promptTokens + 16 <= Self.window, "room is left for the answer")
        #expect(compaction.removedEntries >= 2 && compaction.removedEntries % 2 == 0, "whole turns go")
      }
      #expect(response.finishReason != .contextWindowFull)
    }
    #expect(!compactions.isEmpty)
    let transcript = session.transcript
    guard case .instructions(let instructions) = transcript.first else {
      Issue.record("the instructions were dropped")
      return
    }
    #expect(instructions.segments.text == "Answer briefly.")
    #expect(transcript.last?.text.isEmpty == false)
    guard case .prompt(let latest) = transcript[transcript.count - 2] else { return }
    #expect(latest.segments.text.contains("ocean"))
    #expect(!transcript.contains { $0.text.contains("forest") }, "the oldest turn is gone")
    #expect(try await session.tokenCount() <= Self.window)
  }

  @Test("summarizing: the model writes a summary of the oldest turns into the instructions")
  func summarizing() async throws {
    let model = SystemLanguageModel(modelPath: try TestModel.requireModel().modelPath, configuration: .init(contextSize: 256))
    let session = GenerativeModelSession(model: model, instructions: "Answer briefly.",
                                         contextPolicy: .summarizing(keepingLatestTurns: 1))
    var summarized: ContextCompaction?
    let turns = [
      "My name is Ada and I live in Lisbon. Next week I travel to the Alps to walk in the mountains for five days.",
      "I will stay in a small hotel in Chamonix. The hotel has a view of Mont Blanc and serves breakfast at seven.",
      "On the first day I want to walk to a lake. The path is long and steep, so I will start early in the morning.",
      "On the second day I will take the cable car up the mountain and eat lunch in a restaurant at the top.",
      "On the third day I will rest in the town, visit the museum and buy presents for my family and friends.",
      "On the last day I will take the train back to Geneva and fly home to Lisbon in the evening.",
    ]
    for turn in turns where summarized == nil {
      summarized = try await session.respond(to: turn + " What do you think?", options: Self.options).contextCompaction
    }
    let compaction = try #require(summarized, "six turns never outgrew a 256-token window")
    let summary = try #require(compaction.summary)
    #expect(!summary.isEmpty)
    #expect((compaction.summaryUsage?.outputTokens ?? 0) > 0)
    #expect(compaction.promptTokensAfter.map { $0 <= 256 } ?? false)
    guard case .instructions(let instructions) = session.transcript.first else {
      Issue.record("no instructions after summarizing")
      return
    }
    #expect(instructions.segments.text.hasPrefix("Answer briefly.\n\n" + GenerativeModelSession.summaryHeading))
    #expect(instructions.segments.text.hasSuffix(summary))
    #expect(!session.transcript.contains { $0.text.contains("My name is Ada") }, "the first turn was folded")
  }

  @Test("a prompt that does not fit even alone throws under every policy")
  func promptTooLargeForAnyPolicy() async throws {
    let model = try Self.model()
    let huge = String(repeating: "All work and no play makes Jack a dull boy. ", count: 60)
    for policy: ContextPolicy in [.rollingWindow, .summarizing()] {
      let session = GenerativeModelSession(model: model, instructions: "Answer briefly.", contextPolicy: policy)
      await #expect { try await session.respond(to: huge, options: Self.options) } throws: { error in
        guard case GenerationError.exceededContextWindowSize(let used, let limit) = error else { return false }
        return limit == Self.window && used > limit
      }
      #expect(session.transcript.count == 1)
    }
  }
}
