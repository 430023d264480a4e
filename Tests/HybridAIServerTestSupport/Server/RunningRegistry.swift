import Foundation
import HybridAIRegistry
import HybridAIServing
import HybridAITestSupport

/// The real `hybrid serve` registry (a ``HybridServer`` with ``RegistryAPI`` alone) on 127.0.0.1,
/// its data in a temporary directory: shared by the test targets that deploy models
/// (ModelDeliveryTests, HybridAIToolsTests). Set `HYBRIDAI_TEST_LOG` to see its log.
public final class RunningRegistry: Sendable {
  /// The admin token of registries started with the default.
  public static let adminToken = "integration-admin-token"

  /// The registry's data directory (inside a temporary directory removed by ``stop()``).
  public let dataDirectory: URL
  private let server: RunningServer

  private init(server: RunningServer, dataDirectory: URL) {
    self.server = server
    self.dataDirectory = dataDirectory
  }

  /// The port it listens on.
  public var port: Int { server.port }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL { server.baseURL }

  /// Starts a registry on a free port and returns once it listens. `adminToken: nil` switches
  /// the admin API off.
  public static func start(adminToken: String? = RunningRegistry.adminToken,
                           maxUploadBytes: Int64 = 64 << 20) async throws -> RunningRegistry {
    let root = try TemporaryDirectory("registry")
    let directory = root.appending("registry")
    do {
      let registry = try ModelRegistry(
        configuration: RegistryConfiguration(dataDirectory: directory, adminToken: adminToken, maxUploadBytes: maxUploadBytes),
        logger: TestLogging.logger("registry"))
      let server = try await RunningServer.start([RegistryAPI(registry: registry)])
      return RunningRegistry(server: server, dataDirectory: directory)
    } catch {
      root.remove()
      throw error
    }
  }

  /// Stops the server and removes its data.
  public func stop() async {
    await server.stop()
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
