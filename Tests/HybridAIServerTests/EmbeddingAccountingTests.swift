import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Testing

/// What embeddings cost on a served model: the texts' tokens charged to the caller's key (its
/// tokens-per-minute limit counts them), requests and tokens in `/metrics`, the route labelled.
@Suite("Server: embeddings are metered and charged to the key (real model)")
struct EmbeddingAccountingTests {
  @Test("embedding tokens are charged to the key (a key past its tokens gets 429) and counted in the metrics by outcome")
  func meteredAndCharged() async throws {
    let metrics = ServerMetrics()
    let embedder = BatchedLanguageModel(modelPath: RunningTestServer.modelPath,
                                        configuration: .init(maxConcurrentSequences: 1, contextSizePerSequence: 512))
    let served = ServedModel(name: "m", model: ScriptedLanguageModel(), inputTokenLimit: 100, outputTokenLimit: 100,
                             embedder: embedder) { _ in 1 }.metered(by: metrics)
    let frozen = ContinuousClock.now   // nothing refills between the requests
    let keys = APIKeyAuthority(keys: ["k"], requestsPerMinute: 100, tokensPerMinute: 20, now: { frozen })
    let server = try await RunningServer.start([GeminiCompatibleAPI(models: [served]), OpenAICompatibleAPI(models: [served])],
                                               configuration: ServerConfiguration(keys: keys), metrics: metrics)
    defer { Task { await server.stop() } }
    let openAI = server.baseURL.appendingPathComponent("v1/embeddings")
    let bearer = ["Authorization": "Bearer k"]
    let texts = ["The sky is blue because air scatters blue light.", "Bread needs flour, water, salt and yeast."]

    let first = try await TestHTTP.send(.POST, openAI, headers: bearer, json: ["model": "m", "input": texts])
    #expect(first.status == 200, "\(first.text)")
    let tokens = try #require((try first.json["usage"] as? [String: Any])?["prompt_tokens"] as? Int)
    #expect(tokens > 20, "the texts take more than the key's 20 tokens a minute: \(tokens)")
    let refused = try await TestHTTP.send(.POST, openAI, headers: bearer, json: ["model": "m", "input": "again"])
    #expect(refused.status == 429, "the key's tokens are spent: \(refused.text)")

    let scrape = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("metrics")).text
    #expect(OperationsEndpointTests.value(scrape, MetricName.embeddingRequests, [#"model="m""#, #"outcome="completed""#]) == 1, "\(scrape)")
    #expect(OperationsEndpointTests.value(scrape, MetricName.promptTokens, [#"model="m""#]) == Double(tokens), "\(scrape)")

    // A request the model refuses (no key limit on this server): counted as an error; the Gemini route has its label.
    let open = try await RunningServer.start([GeminiCompatibleAPI(models: [served])], metrics: metrics)
    defer { Task { await open.stop() } }
    let empty = try await TestHTTP.send(.POST, URL(string: open.baseURL.absoluteString + "/v1beta/models/m:embedContent")!,
                                        json: ["content": ["parts": [["text": ""]]]])
    #expect(empty.status == 400, "\(empty.text)")
    let after = try await TestHTTP.send(.GET, open.baseURL.appendingPathComponent("metrics")).text
    #expect(OperationsEndpointTests.value(after, MetricName.embeddingRequests, [#"model="m""#, #"outcome="error""#]) == 1, "\(after)")
    #expect(OperationsEndpointTests.value(after, MetricName.httpRequests, [#"route="/v1beta/models/{model}:embedContent""#]) == 1,
            "\(after)")
  }
}
