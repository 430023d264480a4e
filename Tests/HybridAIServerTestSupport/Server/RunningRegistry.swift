import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIRegistry
import HybridAIServing
import HybridAITestSupport
import Logging
import Synchronization

/// The tests' one registry harness: the real `hybrid serve` registry (a ``HybridServer`` with
/// ``RegistryAPI`` alone) over a socket on 127.0.0.1 (a free port) or in memory (see
/// ``ServerTransport``), its data in a temporary directory, on a clock the test moves; its metadata
/// in `registry.sqlite` there or, with ``StoreKind/postgres``, in a fresh database on the test run's
/// PostgreSQL server. Set `HYBRIDAI_TEST_LOG` to see its log.
public final class RunningRegistry: Sendable {
  /// The two stores the registry ships.
  public enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgres
  }

  /// The admin token of registries started with the default.
  public static let adminToken = "test-admin-token"

  /// The registry's data directory (model files, signing key; `registry.sqlite` with SQLite).
  public let dataDirectory: URL
  /// The registry's clock (download URLs expire on it).
  public let clock: TestClock
  /// The server's metrics (`GET /metrics`).
  public let metrics: ServerMetrics
  private let server: RunningServer
  /// The PostgreSQL store, shut down by ``stop(removingData:)``; `nil` with SQLite.
  private let store: (any RegistryStore)?

  private init(server: RunningServer, dataDirectory: URL, clock: TestClock, metrics: ServerMetrics,
               store: (any RegistryStore)?) {
    self.server = server
    self.store = store
    self.metrics = metrics
    self.dataDirectory = dataDirectory
    self.clock = clock
  }

  /// The port it listens on (`0` in memory).
  public var port: Int { server.port }
  /// `http://127.0.0.1:<port>`, or the in-memory host.
  public var baseURL: URL { server.baseURL }
  /// ``baseURL`` as text.
  public var base: String { baseURL.absoluteString }
  /// Where the registry keeps model files.
  public var blobsDirectory: URL { dataDirectory.appending(path: "blobs/sha256") }
  /// The staging files of uploads under way (``FileSystemBlobStore/stagingPrefix``) in the blob store.
  public var stagingFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: blobsDirectory.path)) ?? [])
      .filter { $0.hasPrefix(FileSystemBlobStore.stagingPrefix) }
  }

  /// `path` on the server.
  public func url(_ path: String) -> URL { URL(string: base + path)! }

  /// Starts a registry on `dataDirectory` (a new temporary one when `nil`) and returns once it takes
  /// requests. `adminToken: nil` switches the admin API off.
  public static func start(dataDirectory: URL? = nil, adminToken: String? = RunningRegistry.adminToken,
                           publicURL: URL? = nil, maxUploadBytes: Int64 = 4 << 20, apiKeys: Set<String> = [],
                           clock: TestClock = TestClock(), transport: ServerTransport = .socket,
                           store kind: StoreKind = .sqlite) async throws -> RunningRegistry {
    let directory = dataDirectory ?? FileManager.default.temporaryDirectory
      .appending(path: "hybrid-registry-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
    let logger = TestLogging.logger("registry")
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
    return RunningRegistry(server: server, dataDirectory: directory, clock: clock, metrics: metrics, store: store)
  }

  /// Runs `body` against a fresh registry, then stops it and deletes its directory, whatever happens.
  public static func with<T>(adminToken: String? = RunningRegistry.adminToken, publicURL: URL? = nil,
                             maxUploadBytes: Int64 = 4 << 20, apiKeys: Set<String> = [], transport: ServerTransport = .socket,
                             store: StoreKind = .sqlite, _ body: (RunningRegistry) async throws -> T) async throws -> T {
    let registry = try await start(adminToken: adminToken, publicURL: publicURL, maxUploadBytes: maxUploadBytes, apiKeys: apiKeys,
                                   transport: transport, store: store)
    do {
      let result = try await body(registry)
      await registry.stop(removingData: true)
      return result
    } catch {
      await registry.stop(removingData: true)
      throw error
    }
  }

  /// Stops the server and waits until it no longer listens, then shuts a PostgreSQL store down. The
  /// data directory stays (a second registry may start on it) unless `removingData`.
  public func stop(removingData: Bool = false) async {
    await server.stop()
    await store?.shutdown()
    if removingData { try? FileManager.default.removeItem(at: dataDirectory) }
  }

  /// The regular files under `directory`, recursively.
  public func files(in directory: URL) -> [String] {
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
public final class TestClock: Sendable {
  private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

  public init() {}

  /// The time now, on this clock.
  public var now: Date { current.withLock { $0 } }

  /// Moves the clock on.
  public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
