import Foundation

/// How to reach one MCP server — the `mcpServers` entries Claude Desktop, VS Code, Cursor and LM
/// Studio read: a program started as a child process that speaks MCP on its standard input and
/// output (`command`, `args`, `env`), or a server at a URL speaking Streamable HTTP (`url`,
/// `headers`).
///
/// ```swift
/// let time = MCPServerConfiguration(name: "time", command: "uvx", arguments: ["mcp-server-time"])
/// let remote = MCPServerConfiguration(name: "docs", url: URL(string: "https://example.org/mcp")!,
///                                     headers: ["Authorization": "Bearer …"])
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
  /// The Streamable HTTP endpoint of a server reached over HTTP (then ``command`` is empty).
  public var url: URL?
  /// Headers sent with every request to ``url`` (a bearer token, say).
  public var headers: [String: String] = [:]
  /// Whether the server may ask the app's model for completions (`sampling/createMessage`); off
  /// unless the configuration allows it (`"sampling": true`).
  public var allowsSampling = false
  /// How long a request to this server may take (`"timeout"`, in seconds, as Cline writes it);
  /// `nil`: the toolbox's `requestTimeout` (60 s by default).
  public var requestTimeout: Duration?

  public init(name: String, command: String, arguments: [String] = [], environment: [String: String] = [:],
              workingDirectory: URL? = nil) {
    self.name = name
    self.command = command
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
  }

  /// A server reached over Streamable HTTP at `url`, with `headers` on every request.
  public init(name: String, url: URL, headers: [String: String] = [:]) {
    self.init(name: name, command: "")
    self.url = url
    self.headers = headers
  }
}
