import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIServer
import Synchronization
import Testing

/// A real `GeminiCompatibleServer` on 127.0.0.1 (a free port) serving the bootstrap's SmolLM2 with
/// continuous batching, recording every generation request it decodes.
final class RunningTestServer: Sendable {
  static let modelName = "smollm2"
  static let modelPath = ModelLocator.defaultModelPath()

  let port: Int
  let log: RequestLog
  /// The served model, wrapped so tests can see how its generations ended.
  let model: ObservedModel
  private let task: Task<Void, any Error>

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// How long test clients wait for a byte from a server whose real model answers: the whole suite
  /// shares two cores and all llama.cpp work in the process runs on one thread, so under load an
  /// answer can wait minutes (GeminiModel's default read timeout is 300 s).
  static let patientReadTimeout: Duration = .seconds(1800)

  /// A `GeminiModel` for this server's model, patient as above.
  func geminiModel() -> GeminiModel {
    GeminiModel(name: Self.modelName, apiKey: nil, baseURL: baseURL,
                configuration: GeminiModel.Configuration(readTimeout: Self.patientReadTimeout))
  }

  private init(port: Int, log: RequestLog, model: ObservedModel, task: Task<Void, any Error>) {
    self.port = port
    self.log = log
    self.model = model
    self.task = task
  }

  /// Starts a server; `apiKeys` non-empty makes keys required.
  static func start(apiKeys: Set<String> = [], maxRequestBytes: Int = 1 << 20,
                    maxConcurrentSequences: Int = 4) async throws -> RunningTestServer {
    try #require(FileManager.default.fileExists(atPath: modelPath),
                 "the test model is missing at \(modelPath): run scripts/bootstrap (make test does)")
    var configuration = BatchedLanguageModel.Configuration()
    configuration.maxConcurrentSequences = maxConcurrentSequences
    configuration.contextSizePerSequence = 1024
    let batched = BatchedLanguageModel(modelPath: modelPath, configuration: configuration)
    let model = ObservedModel(batched)
    let log = RequestLog()
    let server = GeminiCompatibleServer(
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0, apiKeys: apiKeys, maxRequestBytes: maxRequestBytes),
      models: [ServedModel(name: modelName, model: model, inputTokenLimit: configuration.contextSizePerSequence,
                           outputTokenLimit: configuration.contextSizePerSequence,
                           countTokens: { try await batched.tokenCount(for: $0) })],
      onGenerateRequest: { _, request in log.append(request) })
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task {
      try await server.run { port in portContinuation.yield(port) }
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw CancellationError() }
    return RunningTestServer(port: port, log: log, model: model, task: task)
  }

  /// Stops the server and waits until it no longer listens.
  func stop() async {
    task.cancel()
    _ = try? await task.value
  }

  /// The last generation request the server decoded.
  var lastRequest: GenerateContentRequest? { log.requests.withLock { $0.last } }
}

/// The generation requests a server decoded, in order.
final class RequestLog: Sendable {
  let requests = Mutex<[GenerateContentRequest]>([])
  func append(_ request: GenerateContentRequest) { requests.withLock { $0.append(request) } }
}
