import Foundation

/// How to reach one MCP server: a program started as a child process that speaks MCP on its
/// standard input and output — the `mcpServers` entries Claude Desktop, VS Code, Cursor and LM
/// Studio read (`command`, `args`, `env`).
///
/// ```swift
/// let time = MCPServerConfiguration(name: "time", command: "uvx", arguments: ["mcp-server-time"])
/// ```
public struct MCPServerConfiguration: Sendable, Hashable {
  /// The server's name (its tools are told apart by it when two servers offer the same name).
  public var name: String
  /// The program: a path, or a name looked up on `$PATH`.
  public var command: String
  public var arguments: [String]
  /// Variables added to this process's environment for the server.
  public var environment: [String: String]
  /// The working directory, when not this process's.
  public var workingDirectory: URL?

  public init(name: String, command: String, arguments: [String] = [], environment: [String: String] = [:],
              workingDirectory: URL? = nil) {
    self.name = name
    self.command = command
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
  }
}
