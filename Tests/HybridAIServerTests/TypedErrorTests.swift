import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOpenAI
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Foundation Models-style typed errors from every side: Google's recorded-style answers (a
/// scripted server: Google's servers cannot be reached here) and our real server on both APIs.
@Suite("Typed generation errors", .serialized)
struct TypedErrorTests {
  static let noRetries = GeminiModel.Configuration(retryPolicy: .none)

  @Test("Gemini 429 with RetryInfo → rateLimited with the delay; a safety stop → guardrailViolation with the ratings")
  func geminiRateLimitAndGuardrail() async throws {
    let quota = #"{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}]}}"#
    let limited = try await TestHTTPServer.start(replying: .json(quota, status: 429))
    defer { Task { await limited.stop() } }
    let session = GenerativeModelSession(model: GeminiModel(name: "g", apiKey: nil, baseURL: limited.baseURL,
                                                            configuration: Self.noRetries))
    await #expect { try await session.respond(to: "hi") } throws: { error in
      guard case GenerationError.rateLimited(let retryAfter, let detail) = error else { return false }
      return retryAfter == .seconds(17) && detail.contains("Quota exceeded")
    }

    let safety = #"{"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}, {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}]}], "modelVersion": "x"}"#
    let blocking = try await TestHTTPServer.start(replying: .json(safety))
    defer { Task { await blocking.stop() } }
    let guarded = GenerativeModelSession(model: GeminiModel(name: "g", apiKey: nil, baseURL: blocking.baseURL,
                                                            configuration: Self.noRetries))
    await #expect { try await guarded.respond(to: "hi") } throws: { error in
      guard case GenerationError.guardrailViolation(let detail) = error else { return false }
      return detail.contains("SAFETY") && detail.contains("HARM_CATEGORY_DANGEROUS_CONTENT HIGH")
        && !detail.contains("HARASSMENT")
    }
    #expect(guarded.transcript.isEmpty)
  }

  @Test("hybrid serve: a prompt over the served window is exceededContextWindowSize through both APIs")
  func contextOverflowFromOurServer() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let huge = String(repeating: "All work and no play makes Jack a dull boy. ", count: 120)
    let openAI = OpenAIModel(name: RunningTestServer.modelName, apiKey: nil,
                             baseURL: URL(string: server.baseURL.absoluteString + OpenAI.servedPathPrefix)!,
                             configuration: .init(retryPolicy: .none))
    for model in [server.geminiModel() as any LanguageModel, openAI] {
      await #expect { try await GenerativeModelSession(model: model).respond(to: huge) } throws: { error in
        guard case GenerationError.exceededContextWindowSize(let used, let limit) = error else { return false }
        return limit == 1024 && used > 1024
      }
    }
    // Without a session the backend's own error stays, with the same meaning.
    let direct = await #expect(throws: GeminiError.self) {
      for try await _ in server.geminiModel().generate(GenerationRequest(
        transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: huge))]), options: GenerationOptions())) {}
    }
    #expect(direct?.generationError.map { if case .exceededContextWindowSize = $0 { true } else { false } } == true)
  }
}
