import MCP

/// A transport to one MCP server that says when the server is gone (its process ended, or it can
/// no longer be reached), so that waiting requests fail at once.
protocol ServerTransport: Transport {
  nonisolated var exit: ServerExit { get }
}

extension ChildProcessTransport: ServerTransport {}
extension StreamableHTTPTransport: ServerTransport {}
