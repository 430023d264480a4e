import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIOpenAI
import HybridAITestSupport
import Testing

/// Token counts, context sizes and prewarm of the cloud models, against `hybrid serve` (one server
/// for the suite's cases, the real model behind it) and sockets where nothing listens.
@Suite("Cloud token counts and prewarm", .serialized)
struct CloudTokenCountTests {
  @Test("Gemini: countTokens, inputTokenLimit and prewarm against hybrid serve agree with the on-device model")
  func geminiAgainstHybridServe() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let cloud = server.geminiModel()
    let device = SystemLanguageModel(modelPath: RunningTestServer.modelPath, configuration: .init(contextSize: 1024))
    let transcript = Transcript(entries: [
      .instructions(Transcript.Instructions(text: "Be brief.")),
      .prompt(Transcript.Prompt(text: "Name three rivers in Europe.")),
    ])
    let cloudCount = try await cloud.tokenCount(for: transcript)
    #expect(cloudCount == (try await device.tokenCount(for: transcript)))
    #expect(try await cloud.contextSize == 1024)
    try await GenerativeModelSession(model: cloud).prewarm()

    // The count is the prompt tokens the server's answer then reports.
    let session = GenerativeModelSession(model: cloud, instructions: "Be brief.")
    let predicted = try await session.tokenCount(for: "Name three rivers in Europe.")
    let answer = try await session.respond(to: "Name three rivers in Europe.",
                                           options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 4))
    #expect(predicted == cloudCount && answer.usage.promptTokens == predicted)

    // Prefer on-device with a missing file: the cloud counts (it would answer).
    let hybrid = HybridModel(primary: SystemLanguageModel(modelPath: "/nonexistent/model.gguf"), secondary: cloud)
    #expect(try await hybrid.tokenCount(for: transcript) == cloudCount)

    // A model the server does not serve: prewarm fails as a request would.
    let unknown = GeminiModel(name: "no-such-model", apiKey: nil, baseURL: server.baseURL)
    await #expect { try await unknown.prewarm(GenerationRequest(transcript: transcript, options: GenerationOptions())) }
      throws: { error in
        guard case GeminiError.unknownModel = error else { return false }
        return true
      }
  }

  @Test("OpenAI: prewarm checks the model; token counting is a typed unsupported capability")
  func openAIAgainstHybridServe() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let base = URL(string: server.baseURL.absoluteString + OpenAI.servedPathPrefix)!
    let cloud = OpenAIModel(name: RunningTestServer.modelName, apiKey: nil, baseURL: base)
    try await GenerativeModelSession(model: cloud).prewarm()
    await #expect { _ = try await cloud.tokenCount(for: "Hi") } throws: { error in
      guard case GenerationError.unsupportedCapability(let what) = error else { return false }
      return what.contains("cannot count tokens")
    }
    await #expect { _ = try await cloud.contextSize } throws: { error in
      guard case GenerationError.unsupportedCapability = error else { return false }
      return true
    }
    let unknown = OpenAIModel(name: "no-such-model", apiKey: nil, baseURL: base)
    await #expect { try await GenerativeModelSession(model: unknown).prewarm() } throws: { error in
      guard case OpenAIError.unknownModel = error else { return false }
      return true
    }
  }

  @Test("counting tokens with an offline cloud is a typed offline error")
  func offlineCount() async throws {
    let refusing = try RefusingPort()
    defer { refusing.close() }
    let cloud = GeminiModel(name: "gemini-x", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!,
                            configuration: .init(retryPolicy: .none))
    await #expect { _ = try await cloud.tokenCount(for: "Hi") } throws: { error in
      guard case GeminiError.offline(.connectionRefused, _) = error else { return false }
      return true
    }
  }
}
