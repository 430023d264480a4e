import Foundation
import HybridAIProcess
import Logging
import MCP
import Synchronization

/// MCP's stdio transport over a child process started by the project's process runner: one JSON-RPC
/// message per line on the child's standard input and output; its standard error goes to the log
/// line by line (`info`, with the server's name) and its end is kept (it names a crash). A line on
/// standard output that is not a JSON object or array (a banner, a debug print) is skipped with a
/// warning and kept as ``lastUnreadableLine``.
actor ChildProcessTransport: Transport {
  nonisolated let logger: Logger
  /// Fires when the server's process has ended.
  nonisolated let exit = ServerExit()
  private nonisolated let unreadable = UnreadableLine()
  nonisolated var lastUnreadableLine: String? { unreadable.line.withLock { $0 } }
  private let server: String
  private let child: ChildProcess
  private var running: RunningChildProcess?
  private var reader: Task<Void, Never>?
  private let messages: AsyncThrowingStream<Data, any Swift.Error>
  private let continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation

  init(server: String, child: ChildProcess, logger: Logger) {
    self.server = server
    self.child = child
    self.logger = logger
    (messages, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
  }

  func connect() async throws {
    guard running == nil else { return }
    let running: RunningChildProcess
    let (server, logger) = (self.server, self.logger)
    do {
      running = try await child.start(standardError: .collectedLines { line in
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        logger.info("\(line)", metadata: ["server": "\(server)", "stream": "stderr"])
      })
    } catch {
      throw MCPError.launchFailed(server: server, reason: "\(error)")
    }
    self.running = running
    let (continuation, exit, unreadable) = (self.continuation, self.exit, self.unreadable)
    reader = Task {
      while let line = await running.nextLine() {
        let message = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty else { continue }
        guard Self.looksLikeMessage(message) else {
          let shown = String(message.prefix(200))
          logger.warning("an MCP server wrote a line that is not JSON-RPC on standard output; skipped",
                         metadata: ["server": "\(server)", "line": "\(shown)"])
          unreadable.line.withLock { $0 = shown }
          continue
        }
        continuation.yield(Data(message.utf8))
      }
      let error: MCPError
      if case .outputTooLarge(let limit)? = running.outputFailure {
        // The rest of the output cannot be read as messages: the server goes.
        logger.error("an MCP server's message is too large", metadata: ["server": "\(server)", "limitBytes": "\(limit)"])
        _ = await running.stop(signal: SIGTERM, gracePeriod: .seconds(2))
        error = .messageTooLarge(server: server, limit: limit)
      } else {
        let outcome = await running.waitForExit()
        logger.debug("the MCP server's output ended", metadata: ["server": "\(server)", "status": "\(outcome.status)"])
        let tail = String(outcome.standardError.suffix(2000)).trimmingCharacters(in: .whitespacesAndNewlines)
        error = .serverExited(server: server, status: outcome.status, standardError: tail)
      }
      exit.fire(error)
      continuation.finish(throwing: error)
    }
  }

  func disconnect() async {
    guard let running else { return }
    self.running = nil
    await running.closeInput()
    _ = await running.stop(signal: SIGTERM, gracePeriod: .seconds(2))
    reader?.cancel()
    continuation.finish()
  }

  func send(_ data: Data) async throws {
    guard let running, running.isRunning else {
      throw MCPError.serverExited(server: server, status: -1, standardError: "")
    }
    try await running.write(String(decoding: data, as: UTF8.self) + "\n")
  }

  func receive() -> AsyncThrowingStream<Data, any Swift.Error> { messages }

  /// Whether `line` can be a JSON-RPC message (or a batch): it is braced or bracketed. The SDK's
  /// decoder judges the rest.
  static func looksLikeMessage(_ line: String) -> Bool {
    let utf8 = line.utf8
    guard let first = utf8.first, let last = utf8.last else { return false }
    return (first == UInt8(ascii: "{") && last == UInt8(ascii: "}")) || (first == UInt8(ascii: "[") && last == UInt8(ascii: "]"))
  }
}

/// The last line a server wrote on standard output that is not a message.
private final class UnreadableLine: Sendable {
  let line = Mutex<String?>(nil)
}
