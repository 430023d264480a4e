import Foundation
import HybridAI
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Synchronization
import Testing

/// `/healthz`, `/readyz` and `/metrics` on a server over a real socket: readiness follows its
/// checks and turns false while draining; the metrics count requests by route and status, and a
/// served model's tokens, time to first token and answers in flight.
@Suite("Server operations: health, readiness, metrics")
struct OperationsEndpointTests {
  /// The value of the first exposition line that starts with `prefix` and contains every one of `labels`.
  static func value(_ text: String, _ prefix: String, _ labels: [String] = []) -> Double? {
    text.split(separator: "\n").first { line in
      line.hasPrefix(prefix) && labels.allSatisfy { line.contains($0) }
    }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
  }

  @Test("health and readiness: ready when every check passes, 503 naming the failing check, and while draining")
  func healthAndReadiness() async throws {
    let health = ServerHealth()
    let storeReachable = Mutex(true)
    health.addCheck("store") { storeReachable.withLock { $0 } ? nil : "the store does not answer" }
    let served = ServedModel(name: "m", model: ScriptedLanguageModel(), inputTokenLimit: 100, outputTokenLimit: 100) { _ in 1 }
    let server = try await RunningServer.start([GeminiCompatibleAPI(models: [served])], health: health)
    defer { Task { await server.stop() } }
    let live = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("healthz"))
    #expect(live.status == 200 && live.text == "ok\n")
    #expect(live.header("server") == "HybridAI/\(HybridAIVersion.current)")
    let ready = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("readyz"))
    #expect(ready.status == 200)
    #expect(try ready.json["ready"] as? Bool == true)

    storeReachable.withLock { $0 = false }
    let notReady = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("readyz"))
    #expect(notReady.status == 503)
    #expect((try notReady.json["problems"] as? [String: String])?["store"] == "the store does not answer")

    // A part the server can work without: its failure is reported, the server stays ready.
    storeReachable.withLock { $0 = true }
    let registryUp = Mutex(false)
    health.addCheck("registry", required: false) { registryUp.withLock { $0 } ? nil : "the registry store cannot be reached" }
    let degraded = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("readyz"))
    let stillReady = try degraded.json["ready"] as? Bool
    #expect(degraded.status == 200 && stillReady == true)
    #expect((try degraded.json["degraded"] as? [String: String])?["registry"] == "the registry store cannot be reached")
    #expect((try degraded.json["problems"] as? [String: String])?.isEmpty == true)
    registryUp.withLock { $0 = true }

    health.beginDraining()
    let draining = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("readyz"))
    #expect(draining.status == 503)
    #expect(try (draining.json["problems"] as? [String: String])?["draining"] != nil)
    let stillAlive = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("healthz"))
    #expect(stillAlive.status == 200, "alive while draining")
    let refused = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("v1beta/models"))
    #expect(refused.status == 503 && refused.errorStatus == "UNAVAILABLE", "new work goes elsewhere while draining")
    #expect(refused.header("retry-after") == "1")
  }

  @Test("metrics: requests by route and status; a served model's tokens, time to first token and answers in flight")
  func metrics() async throws {
    let metrics = ServerMetrics()
    let model = ScriptedLanguageModel(identifier: "m", deltas: ["Hello", " there"])
    let served = ServedModel(name: "m", model: model, inputTokenLimit: 1000, outputTokenLimit: 100) { _ in 10 }
      .metered(by: metrics)
    let server = try await RunningServer.start([GeminiCompatibleAPI(models: [served])], metrics: metrics)
    defer { Task { await server.stop() } }
    let body: [String: Any] = ["contents": [["role": "user", "parts": [["text": "Hi"]]]]]
    for method in ["generateContent", "streamGenerateContent?alt=sse"] {
      let reply = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1beta/models/m:\(method)")!, json: body)
      #expect(reply.status == 200, "\(method): \(reply.text)")
    }
    let missing = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1beta/models/nope:generateContent")!,
                                          json: body)
    #expect(missing.status == 404)
    #expect(try await TestHTTP.send(.GET, URL(string: server.baseURL.absoluteString + "/no/such/path")!).status == 404)
    _ = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1beta/models/m:noSuchMethod\(UUID())")!, json: body)

    let scrape = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("metrics"))
    #expect(scrape.status == 200 && scrape.contentType?.hasPrefix("text/plain") == true)
    let text = scrape.text
    let route = #"route="/v1beta/models/{model}:generateContent""#
    let streamRoute = #"route="/v1beta/models/{model}:streamGenerateContent""#
    #expect(Self.value(text, MetricName.httpRequests, [route, #"status="200""#, #"method="POST""#]) == 1, "\(text)")
    #expect(Self.value(text, MetricName.httpRequests, [streamRoute, #"status="200""#, #"method="POST""#]) == 1, "\(text)")
    #expect(Self.value(text, MetricName.httpRequests, [route, #"status="404""#]) == 1, "\(text)")
    #expect(Self.value(text, MetricName.httpRequestDuration + "_count", [route]) == 2, "\(text)")
    #expect(Self.value(text, MetricName.httpRequests, [#"route="unmatched""#, #"status="404""#]) == 1, "\(text)")
    #expect(Self.value(text, MetricName.httpRequests, [#"route="/v1beta/models/{model}:other""#]) == 1, "unknown methods share one label: \(text)")
    #expect(Self.value(text, MetricName.promptTokens, [#"model="m""#]) == 20, "two answers of 10 prompt tokens: \(text)")
    #expect(Self.value(text, MetricName.outputTokens, [#"model="m""#]) == 4, "two answers of 2 tokens: \(text)")
    #expect(Self.value(text, MetricName.generationRequests, [#"model="m""#, #"outcome="completed""#]) == 2, "\(text)")
    #expect(Self.value(text, MetricName.activeStreams, [#"model="m""#]) == 0, "none in flight after: \(text)")
    #expect(text.contains("# TYPE \(MetricName.httpRequestDuration) histogram"))
  }
}
