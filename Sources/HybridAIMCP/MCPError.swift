/// Why an MCP server or one of its tools failed.
public enum MCPError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The configuration cannot be used.
  case invalidConfiguration(String)
  /// The server's program could not be started.
  case launchFailed(server: String, reason: String)
  /// The server did not complete the handshake (`initialize`).
  case initializationFailed(server: String, reason: String)
  /// The server answered `initialize` with a protocol version this client does not speak; it was
  /// stopped (``MCPServerConnection/supportedProtocolVersions`` lists those it speaks).
  case unsupportedProtocolVersion(server: String, version: String)
  /// A tool's input schema is not a JSON Schema for an object; the tool is not offered.
  case invalidToolSchema(server: String, tool: String, reason: String)
  /// The server ended; `standardError` is the end of what it printed there.
  case serverExited(server: String, status: Int32, standardError: String)
  /// A request got no answer within its time limit.
  case timedOut(server: String, method: String, seconds: Int)
  /// The server answered a request with an error, or broke the protocol.
  case requestFailed(server: String, method: String, reason: String)
  /// The server sent a message longer than the client reads (``MCPServerConnection/maximumMessageBytes``);
  /// the connection is closed.
  case messageTooLarge(server: String, limit: Int)
  /// The server ended (`reason`) and failed again when it was restarted: it is started again on a
  /// request after `seconds` more.
  case restartDelayed(server: String, seconds: Int, reason: String)
  /// The tool ran and reported a failure (`isError`); `message` is its content.
  case toolFailed(tool: String, message: String)

  public var description: String {
    switch self {
    case .invalidConfiguration(let reason): "invalid MCP configuration: \(reason)"
    case .launchFailed(let server, let reason): "the MCP server \(server) could not be started: \(reason)"
    case .initializationFailed(let server, let reason): "the MCP server \(server) did not initialize: \(reason)"
    case .unsupportedProtocolVersion(let server, let version):
      "the MCP server \(server) speaks protocol version \(version), which HybridAI does not "
        + "(it speaks \(MCPServerConnection.supportedProtocolVersions.joined(separator: ", ")))"
    case .invalidToolSchema(let server, let tool, let reason):
      "the tool \(tool) of the MCP server \(server) is not offered: its input schema \(reason)"
    case .serverExited(let server, let status, let standardError):
      "the MCP server \(server) exited (status \(status))" + (standardError.isEmpty ? "" : ": \(standardError)")
    case .timedOut(let server, let method, let seconds): "the MCP server \(server) did not answer \(method) within \(seconds) s"
    case .requestFailed(let server, let method, let reason): "the MCP server \(server) failed \(method): \(reason)"
    case .restartDelayed(let server, let seconds, let reason):
      "the MCP server \(server) stopped (\(reason)); it is started again on a call after \(seconds) s"
    case .messageTooLarge(let server, let limit):
      "the MCP server \(server) sent a message larger than \(limit >> 20) MiB; it was stopped"
    case .toolFailed(let tool, let message): "the tool \(tool) failed: \(message)"
    }
  }
}
