import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import ModelDelivery
import Testing

/// llama.cpp's own `llama-server -hf` and HybridAI share Hugging Face's cache, both ways, against
/// the Hub stand-in serving the bootstrap's SmolLM2 (llama.cpp asks `/api/models/{repo}/refs` and
/// the tree, HybridAI the revision and the tree; both fetch from `/resolve/{commit}/{file}`).
@Suite("llama-server -hf and HybridAI share the cache", .serialized)
struct LlamaServerHubCacheTests {
  static let repository = "org/SmolLM2-GGUF"

  func standIn() async throws -> HuggingFaceHubStandIn {
    let weights = try Data(contentsOf: URL(fileURLWithPath: RunningTestServer.modelPath), options: .alwaysMapped)
    return try await HuggingFaceHubStandIn.start([
      .init(Self.repository, files: [.init("SmolLM2-135M-Instruct.Q4_1.gguf", weights)]),
    ])
  }

  @Test("a model HybridAI fetched: llama-server -hf serves it without a byte downloaded")
  func llamaServerUsesHybridAIsFetch() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-llama-a")
    defer { directory.remove() }
    let cache = directory.appending("hub")
    let client = HuggingFaceHubClient(configuration: HuggingFaceHubConfiguration(endpoint: hub.endpoint),
                                      cache: HuggingFaceCache(directory: cache))
    _ = try await client.fetch(try ModelReference("hf:\(Self.repository):Q4_1"))
    let transfers = hub.storage.requests.count
    let server = try await RunningLlamaServer.start(
      model: ["-hf", "\(Self.repository):Q4_1"],
      environment: ["MODEL_ENDPOINT": hub.endpoint.absoluteString, "LLAMA_CACHE": cache.path, "HF_HUB_CACHE": cache.path])
    await server.stop()
    #expect(hub.storage.requests.count == transfers, "llama-server downloaded nothing")
    #expect(hub.hub.requests.contains { $0.path == "/api/models/\(Self.repository)/refs" }, "llama-server asked the stand-in")
  }

  @Test("a model llama-server -hf fetched: HybridAI uses it without a request")
  func hybridAIUsesLlamaServersFetch() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-llama-b")
    defer { directory.remove() }
    let cache = directory.appending("hub")
    let server = try await RunningLlamaServer.start(
      model: ["-hf", "\(Self.repository):Q4_1"],
      environment: ["MODEL_ENDPOINT": hub.endpoint.absoluteString, "LLAMA_CACHE": cache.path, "HF_HUB_CACHE": cache.path])
    await server.stop()
    #expect(hub.storage.requests.count >= 1, "llama-server fetched the model from the storage host")
    let requests = hub.hub.requests.count + hub.storage.requests.count
    let client = HuggingFaceHubClient(configuration: HuggingFaceHubConfiguration(endpoint: hub.endpoint),
                                      cache: HuggingFaceCache(directory: cache))
    let model = try await client.model(for: try ModelReference("hf:\(Self.repository):Q4_1"))
    #expect(model.weights.lastPathComponent == "SmolLM2-135M-Instruct.Q4_1.gguf")
    #expect(FileManager.default.contentsEqual(atPath: model.weights.resolvingSymlinksInPath().path, andPath: RunningTestServer.modelPath))
    #expect(hub.hub.requests.count + hub.storage.requests.count == requests)
  }
}
