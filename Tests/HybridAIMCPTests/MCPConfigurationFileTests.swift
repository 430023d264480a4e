import Foundation
import HybridAIMCP
import Testing

/// The `mcpServers` configuration file the MCP clients share.
@Suite("MCP configuration files")
struct MCPConfigurationFileTests {
  @Test("mcpServers (and VS Code's servers): command, args, env, cwd; url and headers; sorted by name")
  func reads() throws {
    let servers = try MCPConfigurationFile.servers(in: Data("""
      {"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "UTC"]},
        "git": {"command": "python", "args": ["-m", "mcp_server_git"], "env": {"GIT_DIR": "/r"}, "cwd": "/r"}
      }}
      """.utf8))
    #expect(servers == [
      MCPServerConfiguration(name: "git", command: "python", arguments: ["-m", "mcp_server_git"], environment: ["GIT_DIR": "/r"],
                             workingDirectory: URL(fileURLWithPath: "/r")),
      MCPServerConfiguration(name: "time", command: "uvx", arguments: ["mcp-server-time", "--local-timezone", "UTC"]),
    ])
    #expect(try MCPConfigurationFile.servers(in: Data(#"{"servers": {"a": {"command": "x"}}}"#.utf8)).map(\.name) == ["a"])
    let remote = try MCPConfigurationFile.servers(in: Data(
      #"{"mcpServers": {"docs": {"type": "http", "url": "https://example.org/mcp", "headers": {"Authorization": "Bearer t"}}}}"#.utf8))
    #expect(remote == [MCPServerConfiguration(name: "docs", url: URL(string: "https://example.org/mcp")!,
                                              headers: ["Authorization": "Bearer t"])])
  }

  @Test("what cannot be used is refused, naming the server and the field", arguments: [
    (#"[1]"#, "is not a JSON object"),
    (#"{"other": {}}"#, "has no \"mcpServers\" object"),
    (#"{"mcpServers": {"web": {"url": "https://example.org/mcp", "type": "sse"}}}"#, "uses transport \"sse\""),
    (#"{"mcpServers": {"web": {"url": "ftp://example.org"}}}"#, "web.url must be an http(s) URL"),
    (#"{"mcpServers": {"a": {"args": []}}}"#, "server a has no \"command\""),
    (#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#, "a.args must be strings"),
    (#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#, "a.env must map names to strings"),
  ])
  func refuses(_ text: String, _ expected: String) {
    #expect { try MCPConfigurationFile.servers(in: Data(text.utf8)) } throws: { error in
      "\(error)".contains(expected)
    }
  }
}
