import Foundation
import HybridAIServer
import Logging

/// The real `hybrid serve` registry (`GeminiCompatibleServer` with a `ModelRegistry`, no
/// generative model) on 127.0.0.1, in a temporary directory.
final class RunningRegistry: Sendable {
  static let adminToken = "integration-admin-token"

  let port: Int
  let dataDirectory: URL
  private let task: Task<Void, any Error>

  private init(port: Int, dataDirectory: URL, task: Task<Void, any Error>) {
    self.port = port
    self.dataDirectory = dataDirectory
    self.task = task
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  static func start(adminToken: String? = RunningRegistry.adminToken,
                    maxUploadBytes: Int64 = 64 << 20) async throws -> RunningRegistry {
    let directory = try TestSupport.temporaryDirectory().appendingPathComponent("registry", isDirectory: true)
    var logger = Logger(label: "ModelDeliveryTests.registry")
    logger.logLevel = ProcessInfo.processInfo.environment["MODEL_DELIVERY_TEST_LOG"] != nil ? .debug : .critical
    let registry = try ModelRegistry(
      configuration: RegistryConfiguration(dataDirectory: directory, adminToken: adminToken, maxUploadBytes: maxUploadBytes),
      logger: logger)
    let server = GeminiCompatibleServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), models: [],
                                        registry: registry, logger: logger)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task { try await server.run { port in continuation.yield(port) } }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw CancellationError() }
    return RunningRegistry(port: port, dataDirectory: directory, task: task)
  }

  func stop() async {
    task.cancel()
    _ = try? await task.value
    TestSupport.cleanUp(dataDirectory.deletingLastPathComponent())
  }
}
