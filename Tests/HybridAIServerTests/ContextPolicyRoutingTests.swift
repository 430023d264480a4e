import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// A context policy composes with the hybrid rule: a conversation the on-device window cannot hold
/// goes to the cloud model's larger window (our server, the real model behind it) before anything
/// is compacted; only when no model can take it — the larger window's model is offline — does the
/// policy act, for the model that can answer.
@Suite("Context policies with hybrid routing", .serialized)
struct ContextPolicyRoutingTests {
  @Test("prefer on-device, rolling window: the cloud's larger window answers first; offline, the policy compacts for the device")
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
    // offline: the policy then makes the conversation fit the on-device window, reports it, and the
    // turn is answered on device.
    let recovered = try await offline.respond(to: long, options: options)
    #expect(recovered.rawResponse.source == .onDevice)
    let compaction = try #require(recovered.contextCompaction, "the compaction is reported on the response")
    #expect(compaction.contextSize == 256 && compaction.removedEntries >= 2)
    #expect(recovered.usage.promptTokens + 8 <= 256)
    #expect(offline.transcript.count < session.transcript.count + 2, "the oldest turns are gone from the session")

    // Under the fail policy the same turn is the typed offline error, and the session is unchanged.
    let failing = GenerativeModelSession(model: .hybrid(primary: device, secondary: offlineCloud),
                                         transcript: session.transcript, contextPolicy: .fail)
    await #expect { try await failing.respond(to: long, options: options) } throws: { error in
      guard case GeminiError.offline = error else { return false }
      return true
    }
    #expect(failing.transcript.count == session.transcript.count)

    // Prefer cloud (offline) with the same conversation: the fallback's window is too small until compacted.
    let preferCloud = GenerativeModelSession(model: .hybrid(primary: offlineCloud, secondary: device),
                                             transcript: session.transcript, contextPolicy: .rollingWindow)
    let fellBack = try await preferCloud.respond(to: long, options: options)
    #expect(fellBack.rawResponse.source == .onDevice && fellBack.contextCompaction != nil)
  }
}
