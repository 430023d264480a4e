import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAITestSupport
import Logging
import ModelDelivery
import NIOCore
import Synchronization
import Testing

/// Shared pieces of the ModelDelivery tests.
enum TestSupport {
  /// One HTTP client for all tests (never shut down, like `HTTPClient.shared`), which fails a
  /// refused connection at once instead of retrying until the connect timeout.
  static let httpClient = DeliveryHTTPClient.makeClient(connectTimeout: .seconds(30), readTimeout: .seconds(300))

  /// Retries without waiting, so fault tests stay fast.
  static let fastRetries = ModelDownloadRetryPolicy(maxAttemptsWithoutProgress: 4, initialBackoff: .milliseconds(1),
                                                    maxBackoff: .milliseconds(5), networkPollInterval: .milliseconds(10))

  /// `count` reproducible pseudo-random bytes.
  static func bytes(_ count: Int, seed: UInt64) -> Data {
    var random = SeededRandom(seed: seed)
    let words = (count + 7) / 8
    let values = [UInt64](unsafeUninitializedCapacity: words) { buffer, initialized in
      for index in 0..<words { buffer.initializeElement(at: index, to: random.next().littleEndian) }
      initialized = words
    }
    return values.withUnsafeBytes { Data($0.prefix(count)) }
  }

  /// A new empty directory, removed by `cleanUp`.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("ModelDeliveryTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static func cleanUp(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
  }

  static let logger: Logger = {
    var logger = Logger(label: "ModelDeliveryTests")
    logger.logLevel = ProcessInfo.processInfo.environment["MODEL_DELIVERY_TEST_LOG"] != nil ? .trace : .critical
    return logger
  }()

  static func downloader(_ server: URL, directory: URL, networkProbe: any NetworkProbe = FixedNetworkProbe(NetworkPath(interface: "lo")),
                         diskSpaceProbe: any DiskSpaceProbe = FixedDiskSpaceProbe(bytes: nil),
                         retryPolicy: ModelDownloadRetryPolicy = fastRetries,
                         installationID: String? = "test-installation", httpClient: HTTPClient = httpClient) -> ModelDownloader {
    ModelDownloader(server: server, directory: directory.appendingPathComponent("models", isDirectory: true),
                    installationID: installationID, httpClient: httpClient, networkProbe: networkProbe,
                    diskSpaceProbe: diskSpaceProbe, retryPolicy: retryPolicy, logger: logger)
  }

  /// Waits (up to `limit`) until `condition` holds; returns whether it did. The limit is generous:
  /// the whole suite shares CI's two cores, and the wait ends as soon as the condition holds.
  /// Runs `body` with a download client of its own (`readTimeout`), shut down afterwards whether
  /// `body` returned or threw (a client dropped without it stops a debug build).
  static func withHTTPClient<Result>(readTimeout: TimeAmount,
                                     _ body: (HTTPClient) async throws -> Result) async throws -> Result {
    let client = DeliveryHTTPClient.makeClient(connectTimeout: .seconds(30), readTimeout: readTimeout)
    do {
      let result = try await body(client)
      try await client.shutdown()
      return result
    } catch {
      try? await client.shutdown()
      throw error
    }
  }

  static func eventually(upTo limit: Duration = .seconds(120), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if try await condition() { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
  }

  /// Waits until no downloader holds the lock of the model whose directory is `modelDirectory`:
  /// a cancelled caller stops waiting at once, while its download still finishes its writes.
  static func waitUntilUnlocked(_ modelDirectory: URL) async -> Bool {
    let fd = open(modelDirectory.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return await eventually {
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
      flock(fd, LOCK_UN)
      return true
    }
  }

  /// Bytes of `name` the downloader has received now, while it downloads (0 otherwise).
  static func bytesOnDevice(_ name: String, _ downloader: ModelDownloader) -> Int64 {
    if case .downloading(let bytes, _) = downloader.modelFile(named: name).fileState { return bytes }
    return 0
  }

  /// The files in a model's directory.
  static func files(of name: String, in directory: URL) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(
      atPath: directory.appendingPathComponent("models/\(name)").path)) ?? [])
  }
}

/// A test environment: a faulty registry server and a temporary directory, torn down by `close`.
struct FaultyEnvironment {
  let server: FaultyRegistryServer
  let directory: URL

  static func make() async throws -> FaultyEnvironment {
    FaultyEnvironment(server: try await FaultyRegistryServer.start(), directory: try TestSupport.temporaryDirectory())
  }

  func downloader(networkProbe: any NetworkProbe = FixedNetworkProbe(NetworkPath(interface: "lo")),
                  diskSpaceProbe: any DiskSpaceProbe = FixedDiskSpaceProbe(bytes: nil),
                  retryPolicy: ModelDownloadRetryPolicy = TestSupport.fastRetries,
                  httpClient: HTTPClient = TestSupport.httpClient) -> ModelDownloader {
    TestSupport.downloader(server.baseURL, directory: directory, networkProbe: networkProbe,
                           diskSpaceProbe: diskSpaceProbe, retryPolicy: retryPolicy, httpClient: httpClient)
  }

  var modelsDirectory: URL { directory.appendingPathComponent("models", isDirectory: true) }

  func close() async {
    await server.stop()
    TestSupport.cleanUp(directory)
  }
}

/// A probe whose answer a test changes, counting its calls.
final class SwitchableNetworkProbe: NetworkProbe {
  private let state: Mutex<(path: NetworkPath, calls: Int)>

  init(_ path: NetworkPath) { state = Mutex((path, 0)) }

  func set(_ path: NetworkPath) { state.withLock { $0.path = path } }
  var calls: Int { state.withLock { $0.calls } }

  func path(to host: String) async -> NetworkPath {
    state.withLock { state in
      state.calls += 1
      return state.path
    }
  }
}
