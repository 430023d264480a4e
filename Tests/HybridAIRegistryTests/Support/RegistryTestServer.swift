import Foundation
import HybridAI
import HybridAIRegistry
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Logging
import Synchronization
import Testing

/// A real ``HybridServer`` with the model registry alone, over a socket on 127.0.0.1 (a free port)
/// or in memory (see ``ServerTransport``), its data in a temporary directory, on a clock the test moves;
/// its metadata in `registry.sqlite` there, or (``StoreKind/postgres``) in a fresh database on the
/// test run's PostgreSQL server.
final class RegistryTestServer: Sendable {
  static let adminToken = "test-admin-token"

  let dataDirectory: URL
  let clock: TestClock
  /// The server's metrics (`GET /metrics`).
  let metrics: ServerMetrics
  private let server: RunningServer
  /// The PostgreSQL store, shut down by ``stop()``; `nil` with SQLite.
  private let store: (any RegistryStore)?

  var port: Int { server.port }
  var baseURL: URL { server.baseURL }
  var base: String { baseURL.absoluteString }
  var blobsDirectory: URL { dataDirectory.appending(path: "blobs/sha256") }
  /// The staging files of uploads under way (``FileSystemBlobStore/stagingPrefix``) in the blob store.
  var stagingFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: blobsDirectory.path)) ?? [])
      .filter { $0.hasPrefix(FileSystemBlobStore.stagingPrefix) }
  }

  private init(server: RunningServer, dataDirectory: URL, clock: TestClock, metrics: ServerMetrics,
               store: (any RegistryStore)?) {
    self.server = server
    self.store = store
    self.metrics = metrics
    self.dataDirectory = dataDirectory
    self.clock = clock
  }

  /// Starts a server on `dataDirectory` (a new temporary one when `nil`).
  static func start(dataDirectory: URL? = nil, adminToken: String? = RegistryTestServer.adminToken,
                    publicURL: URL? = nil, maxUploadBytes: Int64 = 4 << 20, apiKeys: Set<String> = [],
                    clock: TestClock = TestClock(), transport: ServerTransport = .socket,
                    store kind: StoreKind = .sqlite) async throws -> RegistryTestServer {
    let directory = dataDirectory ?? FileManager.default.temporaryDirectory
      .appending(path: "hybrid-registry-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
    var logger = Logger(label: "HybridAI.registry.tests")
    logger.logLevel = .warning
    var store: (any RegistryStore)?
    if kind == .postgres {
      let postgres = try await TemporaryPostgres.shared()
      store = try await PostgresRegistryStore(configuration: postgres.configuration(database: try await postgres.createDatabase("api")),
                                              logger: logger)
    }
    let registry = try ModelRegistry(
      configuration: RegistryConfiguration(dataDirectory: directory, adminToken: adminToken, publicURL: publicURL,
                                           maxUploadBytes: maxUploadBytes, downloadURLLifetime: .seconds(600)),
      store: store, now: { clock.now }, logger: logger)
    let metrics = ServerMetrics()
    let server = try await RunningServer.start(
      [RegistryAPI(registry: registry, metrics: metrics)],
      // The Gemini API's body limit (1 MiB) is below the uploads' (tests upload 3 MiB): uploads
      // must not be held to it.
      configuration: ServerConfiguration(apiKeys: apiKeys, maxRequestBytes: 1 << 20), metrics: metrics, transport: transport)
    return RegistryTestServer(server: server, dataDirectory: directory, clock: clock, metrics: metrics, store: store)
  }

  /// Runs `body` against a fresh server, then stops it and deletes its directory.
  static func with<T>(adminToken: String? = RegistryTestServer.adminToken, publicURL: URL? = nil,
                      maxUploadBytes: Int64 = 4 << 20, apiKeys: Set<String> = [], transport: ServerTransport = .socket,
                      store: StoreKind = .sqlite, _ body: (RegistryTestServer) async throws -> T) async throws -> T {
    let server = try await start(adminToken: adminToken, publicURL: publicURL, maxUploadBytes: maxUploadBytes, apiKeys: apiKeys,
                                 transport: transport, store: store)
    defer { try? FileManager.default.removeItem(at: server.dataDirectory) }
    do {
      let result = try await body(server)
      await server.stop()
      return result
    } catch {
      await server.stop()
      throw error
    }
  }

  /// Stops the server and waits until it no longer listens (the directory stays), then shuts a
  /// PostgreSQL store down.
  func stop() async {
    await server.stop()
    await store?.shutdown()
  }

  func url(_ path: String) -> URL { URL(string: base + path)! }

  /// The regular files under `directory`, recursively.
  func files(in directory: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
      return []
    }
    return enumerator.compactMap { item in
      guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { return nil }
      return url.path
    }
  }
}

/// A clock tests set by hand.
final class TestClock: Sendable {
  private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

  var now: Date { current.withLock { $0 } }

  func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
