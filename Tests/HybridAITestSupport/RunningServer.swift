import Foundation
import HybridAIServing

/// A ``HybridServer`` running on 127.0.0.1 on a free port, for tests: the real server, real
/// sockets. ``stop()`` shuts it down gracefully and waits until it no longer listens.
public final class RunningServer: Sendable {
  /// The port it listens on.
  public let port: Int
  private let task: Task<Void, any Error>

  private init(port: Int, task: Task<Void, any Error>) {
    self.port = port
    self.task = task
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts `components` (in that order) on a free loopback port and returns once it listens.
  /// `configuration`'s host and port are replaced by 127.0.0.1 and 0.
  public static func start(_ components: [any ServerComponent],
                           configuration: ServerConfiguration = ServerConfiguration()) async throws -> RunningServer {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let server = HybridServer(configuration: configuration, components: components, logger: TestLogging.logger("server"))
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
    return RunningServer(port: port, task: task)
  }

  /// Stops the server (gracefully: requests in flight finish) and waits until it is down.
  public func stop() async {
    task.cancel()
    _ = try? await task.value
  }
}
