import Foundation
import HybridAIServer
import Logging

/// The real `hybrid serve` registry (`GeminiCompatibleServer` with a `ModelRegistry`, no
/// generative model) on 127.0.0.1, its data in a temporary directory.
final class TestRegistry: Sendable {
  static let adminToken = "tools-test-admin-token"

  let port: Int
  let dataDirectory: URL
  private let task: Task<Void, any Error>

  private init(port: Int, dataDirectory: URL, task: Task<Void, any Error>) {
    self.port = port
    self.dataDirectory = dataDirectory
    self.task = task
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts a registry on a free port and returns once it listens.
  static func start() async throws -> TestRegistry {
    let directory = try ToolTestSupport.temporaryDirectory()
    var logger = Logger(label: "HybridAIToolsTests.registry")
    logger.logLevel = .critical
    let registry = try ModelRegistry(
      configuration: RegistryConfiguration(dataDirectory: directory.appendingPathComponent("registry", isDirectory: true),
                                           adminToken: adminToken, maxUploadBytes: 64 << 20),
      logger: logger)
    let server = GeminiCompatibleServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), models: [],
                                        registry: registry, logger: logger)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task { try await server.run { port in continuation.yield(port) } }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
      task.cancel()
      try? FileManager.default.removeItem(at: directory)
      throw CancellationError()
    }
    return TestRegistry(port: port, dataDirectory: directory, task: task)
  }

  /// Stops the server and removes its data.
  func stop() async {
    task.cancel()
    _ = try? await task.value
    try? FileManager.default.removeItem(at: dataDirectory)
  }

  /// Runs `body` with a started registry, stopping it afterwards whatever happens.
  static func with<T>(_ body: (TestRegistry) async throws -> T) async throws -> T {
    let registry = try await start()
    do {
      let result = try await body(registry)
      await registry.stop()
      return result
    } catch {
      await registry.stop()
      throw error
    }
  }
}

extension ToolTestSupport {
  /// A logger that keeps the test output quiet (expected failures included).
  static let quietLogger: Logger = {
    var logger = Logger(label: "HybridAIToolsTests")
    logger.logLevel = .critical
    return logger
  }()
}
