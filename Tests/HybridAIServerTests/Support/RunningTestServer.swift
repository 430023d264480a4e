import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Synchronization
import Testing

/// A real ``HybridServer`` with the ``GeminiCompatibleAPI``, on 127.0.0.1 (a free port) or in memory (see
/// ``ServerTransport``), serving the bootstrap's SmolLM2 with continuous batching, recording every generation
/// request it decodes.
final class RunningTestServer: Sendable {
  static let modelName = "smollm2"
  static let modelPath = ModelLocator.defaultModelPath()

  let log: RequestLog
  /// The served model, wrapped so tests can see how its generations ended.
  let model: ObservedBatchedModel
  private let server: RunningServer

  var port: Int { server.port }
  var baseURL: URL { server.baseURL }

  /// How long test clients wait for a byte from a server whose real model answers: the whole suite
  /// shares two cores and all llama.cpp work in the process runs on one thread, so under load an
  /// answer can wait minutes (GeminiModel's default read timeout is 300 s).
  static let patientReadTimeout: Duration = .seconds(1800)

  /// A `GeminiModel` for this server's model, patient as above.
  func geminiModel() -> GeminiModel {
    GeminiModel(name: Self.modelName, apiKey: nil, baseURL: baseURL,
                configuration: GeminiModel.Configuration(readTimeout: Self.patientReadTimeout))
  }

  private init(server: RunningServer, log: RequestLog, model: ObservedBatchedModel) {
    self.server = server
    self.log = log
    self.model = model
  }

  /// Starts a server; `apiKeys` non-empty makes keys required.
  static func start(apiKeys: Set<String> = [], maxRequestBytes: Int = 1 << 20,
                    maxConcurrentSequences: Int = 4, contextSizePerSequence: Int = 1024,
                    transport: ServerTransport = .socket) async throws -> RunningTestServer {
    try #require(FileManager.default.fileExists(atPath: modelPath),
                 "the test model is missing at \(modelPath): run scripts/bootstrap (make test does)")
    var configuration = BatchedLanguageModel.Configuration()
    configuration.maxConcurrentSequences = maxConcurrentSequences
    configuration.contextSizePerSequence = contextSizePerSequence
    let batched = BatchedLanguageModel(modelPath: modelPath, configuration: configuration)
    let model = ObservedLanguageModel(batched)
    let log = RequestLog()
    let served = ServedModel(name: modelName, model: model, inputTokenLimit: configuration.contextSizePerSequence,
                             outputTokenLimit: configuration.contextSizePerSequence, embedder: batched,
                             countTokens: { try await batched.tokenCount(for: $0) })
    let api = GeminiCompatibleAPI(models: [served], onGenerateRequest: { _, request in log.append(request) })
    let server = try await RunningServer.start(
      [api, OpenAICompatibleAPI(models: [served])],
      configuration: ServerConfiguration(apiKeys: apiKeys, maxRequestBytes: maxRequestBytes), transport: transport)
    return RunningTestServer(server: server, log: log, model: model)
  }

  /// Stops the server and waits until it no longer listens.
  func stop() async { await server.stop() }

  /// The last generation request the server decoded.
  var lastRequest: GenerateContentRequest? { log.requests.withLock { $0.last } }
}

/// The generation requests a server decoded, in order.
final class RequestLog: Sendable {
  let requests = Mutex<[GenerateContentRequest]>([])
  func append(_ request: GenerateContentRequest) { requests.withLock { $0.append(request) } }
}

/// The served model of ``RunningTestServer``: the real batched model, observed.
typealias ObservedBatchedModel = ObservedLanguageModel<BatchedLanguageModel>
