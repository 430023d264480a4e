import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// A context policy composes with the hybrid rule: a conversation the on-device window cannot hold
/// goes to the cloud model's larger window (our server, the real model behind it) before anything
/// is compacted; only when no model can take it does the policy act.
@Suite("Context policies with hybrid routing", .serialized)
struct ContextPolicyRoutingTests {
  @Test("prefer on-device, rolling window: the cloud's larger window answers first; offline, the policy compacts")
  func largerCloudWindowFirst() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let device = SystemLanguageModel(modelPath: RunningTestServer.modelPath, configuration: .init(contextSize: 256))
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
    let long = "Tell me about trees. " + String(repeating: "Trees are tall and green and old. ", count: 8)

    let session = GenerativeModelSession(model: .hybrid(primary: device, secondary: server.geminiModel()),
                                         instructions: "Answer briefly.", contextPolicy: .rollingWindow)
    var answers: [GenerativeModelSession.Response<String>] = []
    for _ in 0..<3 { answers.append(try await session.respond(to: long, options: options)) }
    #expect(answers[0].rawResponse.source == .onDevice)
    let overflowing = try #require(answers.first { $0.rawResponse.source == .cloud },
                                   "three long turns never outgrew the 256-token on-device window")
    guard case .unsupported(let reason)? = overflowing.rawResponse.fallback?.reason else {
      Issue.record("expected an unsupported-request fallback, got \(String(describing: overflowing.rawResponse.fallback))")
      return
    }
    #expect(reason.contains("context window holds 256"))
    #expect(answers.allSatisfy { $0.contextCompaction == nil }, "nothing was compacted while the cloud could take it")
    #expect(session.transcript.count == 7)

    // The same conversation with the cloud unreachable: the on-device window is all there is.
    let refusing = try RefusingPort()
    defer { refusing.close() }
    let offlineCloud = GeminiModel(name: "gemini-x", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!,
                                   configuration: .init(retryPolicy: .none))
    let offline = GenerativeModelSession(model: .hybrid(primary: device, secondary: offlineCloud),
                                         transcript: session.transcript, contextPolicy: .rollingWindow)
    // Gemini reports no window locally, so routing sends the overflowing turn to the cloud, which is
    // offline: the typed offline error, not a silent compaction.
    await #expect { try await offline.respond(to: long, options: options) } throws: { error in
      guard case GeminiError.offline = error else { return false }
      return true
    }
    let deviceOnly = GenerativeModelSession(model: device, transcript: session.transcript, contextPolicy: .rollingWindow)
    let compacted = try await deviceOnly.respond(to: long, options: options)
    #expect(compacted.rawResponse.source == .onDevice)
    #expect(try #require(compacted.contextCompaction).removedEntries >= 2)
  }
}
