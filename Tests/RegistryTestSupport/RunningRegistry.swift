import Foundation
import HybridAIServer
import Logging

/// The real `hybrid serve` registry (`GeminiCompatibleServer` with a `ModelRegistry`, no
/// generative model) on 127.0.0.1, its data in a temporary directory: shared by the test targets
/// that deploy models (ModelDeliveryTests, HybridAIToolsTests). Set `HYBRIDAI_TEST_LOG` to see
/// its log.
public final class RunningRegistry: Sendable {
  /// The admin token of registries started with the default.
  public static let adminToken = "integration-admin-token"

  /// The port it listens on.
  public let port: Int
  /// The registry's data directory (inside a temporary directory removed by ``stop()``).
  public let dataDirectory: URL
  private let task: Task<Void, any Error>

  private init(port: Int, dataDirectory: URL, task: Task<Void, any Error>) {
    self.port = port
    self.dataDirectory = dataDirectory
    self.task = task
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts a registry on a free port and returns once it listens. `adminToken: nil` switches
  /// the admin API off.
  public static func start(adminToken: String? = RunningRegistry.adminToken,
                           maxUploadBytes: Int64 = 64 << 20) async throws -> RunningRegistry {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)", isDirectory: true)
    let directory = root.appendingPathComponent("registry", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var logger = Logger(label: "tests.registry")
    logger.logLevel = ProcessInfo.processInfo.environment["HYBRIDAI_TEST_LOG"] != nil ? .debug : .critical
    do {
      let registry = try ModelRegistry(
        configuration: RegistryConfiguration(dataDirectory: directory, adminToken: adminToken, maxUploadBytes: maxUploadBytes),
        logger: logger)
      let server = GeminiCompatibleServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), models: [],
                                          registry: registry, logger: logger)
      let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
      let task = Task { try await server.run { port in continuation.yield(port) } }
      var iterator = ports.makeAsyncIterator()
      guard let port = await iterator.next() else {
        task.cancel()
        throw CancellationError()
      }
      return RunningRegistry(port: port, dataDirectory: directory, task: task)
    } catch {
      try? FileManager.default.removeItem(at: root)
      throw error
    }
  }

  /// Stops the server and removes its data.
  public func stop() async {
    task.cancel()
    _ = try? await task.value
    try? FileManager.default.removeItem(at: dataDirectory.deletingLastPathComponent())
  }

  /// Runs `body` with a started registry, stopping it afterwards whatever happens.
  public static func with<T>(_ body: (RunningRegistry) async throws -> T) async throws -> T {
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
