import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// Log probabilities through the Gemini API both ways: `GeminiModel` asks `hybrid serve` with
/// `responseLogprobs` and `logprobs`, the server answers from its on-device model's logits in
/// `logprobsResult`, and the client reads them back as the device's own entries.
@Suite("Gemini log probabilities against hybrid serve")
struct GeminiLogProbabilityTests {
  @Test("GeminiModel: logProbabilities go out as responseLogprobs and logprobs and come back as the on-device model's entries (tokens, ids, alternatives); unary and streamed alike; none unless asked")
  func bothWays() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    var options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
    let config = GenerationConfig.forRequest({ var asking = options; asking.logProbabilities = 2; return asking }())
    #expect(config?.responseLogprobs == true && config?.logprobs == 2)

    let plain = try await GenerativeModelSession(model: server.geminiModel()).respond(to: "Name a colour.", options: options)
    #expect(plain.rawResponse.logProbabilities == nil, "none unless asked")

    options.logProbabilities = 2
    let cloud = try await GenerativeModelSession(model: server.geminiModel()).respond(to: "Name a colour.", options: options)
    let streamed = try await GenerativeModelSession(model: server.geminiModel())
      .streamResponse(to: "Name a colour.", options: options).collect()
    let device = SystemLanguageModel(modelPath: RunningTestServer.modelPath, configuration: .init(contextSize: 1024))
    let local = try await GenerativeModelSession(model: device).respond(to: "Name a colour.", options: options)

    #expect(cloud.content == plain.content && cloud.content == local.content)
    let cloudEntries = try #require(cloud.rawResponse.logProbabilities)
    let localEntries = try #require(local.rawResponse.logProbabilities)
    #expect(!cloudEntries.isEmpty && cloudEntries.map(\.token).joined() == cloud.content)
    #expect(cloudEntries.map(\.token) == localEntries.map(\.token) && cloudEntries.map(\.tokenID) == localEntries.map(\.tokenID))
    #expect(cloudEntries.allSatisfy { $0.tokenID != nil && $0.topAlternatives.count == 2 })
    #expect(cloudEntries.map { $0.topAlternatives.map(\.tokenID) } == localEntries.map { $0.topAlternatives.map(\.tokenID) })
    #expect(zip(cloudEntries, localEntries).allSatisfy { abs($0.logProbability - $1.logProbability) < 1e-2 },
            "\(cloudEntries.map(\.logProbability)) vs \(localEntries.map(\.logProbability))")
    #expect(streamed.rawResponse.logProbabilities?.map(\.tokenID) == cloudEntries.map(\.tokenID), "the stream's last chunk holds them")
  }
}
