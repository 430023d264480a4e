import MCP

/// A transport to one MCP server that says when the server is gone (its process ended, or it can
/// no longer be reached), so that waiting requests fail at once.
protocol ServerTransport: Transport {
  nonisolated var exit: ServerExit { get }
  /// The last thing the server sent that is not a JSON-RPC message (skipped, and logged), if any:
  /// it explains a request that got no answer.
  nonisolated var lastUnreadableLine: String? { get }
}

extension ChildProcessTransport: ServerTransport {}
extension StreamableHTTPTransport: ServerTransport {
  nonisolated var lastUnreadableLine: String? { nil }
}
