import Foundation
import Hummingbird
import HummingbirdTesting
import HybridAIServing
import HybridAITestSupport

/// A ``HybridServer`` for tests, reached over a real socket on 127.0.0.1 (a free port) or in
/// memory through its router (see ``ServerTransport``): the same components, the same
/// middleware. Send requests with ``TestHTTP`` to ``baseURL``; ``stop()`` shuts it down
/// gracefully and waits until it is down.
public final class RunningServer: Sendable {
  /// The port it listens on; `0` in memory.
  public let port: Int
  /// Where requests go: `http://127.0.0.1:<port>`, or `http://in-memory-<n>` for ``TestHTTP``.
  public let baseURL: URL
  /// How it is reached.
  public let transport: ServerTransport
  /// The origin of the pages it serves, as a browser sends it in `Origin` on their own requests
  /// (in memory, every request arrives with the authority `localhost`, as HummingbirdTesting's
  /// router framework sends it).
  public var origin: String {
    transport == .socket ? baseURL.absoluteString : "http://localhost"
  }
  private let task: Task<Void, any Error>

  private init(port: Int, baseURL: URL, transport: ServerTransport, task: Task<Void, any Error>) {
    self.port = port
    self.baseURL = baseURL
    self.transport = transport
    self.task = task
  }

  /// Starts `components` (in that order) and returns once it takes requests. Over a socket,
  /// `configuration`'s host and port are replaced by 127.0.0.1 and 0.
  public static func start(_ components: [any ServerComponent], configuration: ServerConfiguration = ServerConfiguration(),
                           health: ServerHealth = ServerHealth(), metrics: ServerMetrics = ServerMetrics(),
                           transport: ServerTransport = .socket) async throws -> RunningServer {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let server = HybridServer(configuration: configuration, components: components, health: health, metrics: metrics,
                              logger: TestLogging.logger("server"))
    switch transport {
    case .socket:
      let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
      let task = Task {
        defer { continuation.finish() }
        try await server.run { port in continuation.yield(port) }
      }
      var iterator = ports.makeAsyncIterator()
      guard let port = await iterator.next() else {
        // It ended before listening: its error says why.
        try await task.value
        throw CancellationError()
      }
      return RunningServer(port: port, baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: .socket, task: task)
    case .inMemory:
      let host = InMemoryServers.makeHost()
      let (ready, continuation) = AsyncStream.makeStream(of: Void.self)
      let application = Application(router: server.makeRouter(), logger: TestLogging.logger("server"))
      let task = Task {
        defer {
          InMemoryServers.remove(host: host)
          continuation.finish()
        }
        try await application.test(.router) { client in
          InMemoryServers.register(client, host: host)
          continuation.yield()
          // Serve until stopped.
          while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
      }
      var iterator = ready.makeAsyncIterator()
      guard await iterator.next() != nil else {
        try await task.value
        throw CancellationError()
      }
      return RunningServer(port: 0, baseURL: URL(string: "http://\(host)")!, transport: .inMemory, task: task)
    }
  }

  /// Stops the server (gracefully: requests in flight finish) and waits until it is down.
  public func stop() async {
    task.cancel()
    _ = try? await task.value
  }
}
