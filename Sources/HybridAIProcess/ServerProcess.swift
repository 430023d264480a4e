import Foundation

/// A `hybrid serve` child process on a free loopback port: for the demo, the benchmarks and the
/// command-line tests.
public final class ServerProcess: Sendable {
  private let child: RunningChildProcess
  /// The server's base URL, e.g. `http://127.0.0.1:41234`.
  public let baseURL: URL

  /// Starts `hybrid serve --port 0 <arguments>` (its standard error passed through; `environment`
  /// added to this process's) and waits until it prints the port it listens on.
  public init(executable: URL, arguments: [String], environment: [String: String] = [:]) async throws {
    child = try await ChildProcess(executable: executable, arguments: ["serve", "--port", "0"] + arguments,
                                   environment: environment.mapValues { Optional($0) })
      .start(standardError: .inherited)
    guard let url = await child.firstLine(where: Self.listeningURL(in:)) else {
      let outcome = await child.stop()
      throw ServerProcessError.didNotStart(status: outcome.status)
    }
    baseURL = url
  }

  /// Stops the server with `signal` (SIGTERM: it finishes in-flight requests), waits for it to
  /// exit (killing it after 30 s) and returns how it ended.
  @discardableResult
  public func stop(signal: Int32 = SIGTERM) async -> ChildProcess.Outcome {
    await child.stop(signal: signal, gracePeriod: .seconds(30))
  }

  /// Sends SIGTERM without waiting, for cleanup paths that cannot wait.
  public func terminate() {
    child.send(signal: SIGTERM)
  }

  /// The URL in a "… listening on URL …" line.
  private static func listeningURL(in line: String) -> URL? {
    guard let range = line.range(of: "listening on ") else { return nil }
    let rest = line[range.upperBound...]
    return URL(string: String(rest[..<(rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex)]))
  }
}

/// Why a ``ServerProcess`` did not start.
public enum ServerProcessError: Error, CustomStringConvertible {
  case didNotStart(status: Int32)

  public var description: String {
    switch self {
    case .didNotStart(let status): "hybrid serve did not start (exit status \(status))"
    }
  }
}
