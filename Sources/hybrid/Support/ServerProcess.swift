import Foundation

/// A `hybrid serve` child process on a free loopback port, for the demo.
final class ServerProcess {
  let process: Process
  /// The server's base URL, e.g. `http://127.0.0.1:41234`.
  let baseURL: URL

  /// Starts `hybrid serve --port 0 <arguments>` and waits until it prints the port it listens on.
  init(executable: URL, arguments: [String]) async throws {
    let process = Process()
    process.executableURL = executable
    process.arguments = ["serve", "--port", "0"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    self.process = process
    guard let url = try await Self.listeningURL(from: output.fileHandleForReading) else {
      process.terminate()
      throw ServerProcessError.didNotStart(status: process.isRunning ? nil : process.terminationStatus)
    }
    baseURL = url
  }

  /// Stops the server with SIGTERM (it finishes in-flight requests) and waits for it to exit.
  func stop() {
    guard process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }

  deinit { stop() }

  /// Reads the child's output until its "listening on URL" line (or the end, if it dies first).
  private static func listeningURL(from handle: FileHandle) async throws -> URL? {
    let reader = Task.detached { () -> URL? in
      var pending = Data()
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { return nil }
        pending.append(chunk)
        let text = String(decoding: pending, as: UTF8.self)
        if let range = text.range(of: "listening on "),
           let end = text[range.upperBound...].firstIndex(where: \.isWhitespace) {
          return URL(string: String(text[range.upperBound..<end]))
        }
      }
    }
    return await reader.value
  }
}

enum ServerProcessError: Error, CustomStringConvertible {
  case didNotStart(status: Int32?)

  var description: String {
    switch self {
    case .didNotStart(let status): "hybrid serve did not start" + (status.map { " (exit status \($0))" } ?? "")
    }
  }
}
