import Foundation
@testable import HybridAIMCP
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

  @Test("secrets from files: envFile lines under env, ${file:…} in env and headers (relative to the file's folder); disabled servers left out; timeout in seconds; other clients' keys ignored")
  func secretsFromFiles() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("# the server's keys\nexport API_KEY=\"from-env-file\"\nREGION = eu\n\nTZ=UTC\n".utf8).write(to: folder.appendingPathComponent("server.env"))
    try Data("s3cret\n".utf8).write(to: folder.appendingPathComponent("token"))
    let config = folder.appendingPathComponent("mcp.json")
    try Data(#"""
      {"mcpServers": {
        "git": {"command": "x", "envFile": "server.env", "env": {"TZ": "Europe/Paris", "TOKEN": "${file:token}"}, "autoApprove": ["log"]},
        "docs": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer ${file:token}"}, "timeout": 30},
        "old": {"command": "y", "disabled": true}
      }}
      """#.utf8).write(to: config)
    let servers = try MCPConfigurationFile.servers(at: config)
    #expect(servers.map(\.name) == ["docs", "git"])
    #expect(servers.first?.headers == ["Authorization": "Bearer s3cret"])
    #expect(servers.first?.requestTimeout == .seconds(30) && servers.last?.requestTimeout == nil, "\"timeout\" in seconds")
    #expect(servers.last?.environment == ["API_KEY": "from-env-file", "REGION": "eu", "TZ": "Europe/Paris", "TOKEN": "s3cret"])
    #expect(MCPConfigurationFile.lineNumber(of: "timeout", after: "docs", in: String(decoding: try Data(contentsOf: config), as: UTF8.self)) == 3)
  }

  @Test("what cannot be used is refused, naming the server and the field", arguments: [
    (#"[1]"#, "is not a JSON object"),
    (#"{"other": {}}"#, "has no \"mcpServers\" object"),
    (#"{"mcpServers": {"web": {"url": "https://example.org/mcp", "type": "sse"}}}"#, "uses transport \"sse\""),
    (#"{"mcpServers": {"web": {"url": "ftp://example.org"}}}"#, "web.url must be an http(s) URL"),
    (#"{"mcpServers": {"a": {"args": []}}}"#, "server a has no \"command\""),
    (#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#, "a.args must be strings"),
    (#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#, "a.env must map names to strings"),
    ("{\"mcpServers\": {\"a\": {\"command\": \"x\",\n  \"arguments\": []}}}", "the MCP configuration:2: server a has an unknown key \"arguments\""),
    (#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${file:/no/such/secret}"}}}}"#, "a.env.K names /no/such/secret, which cannot be read"),
    (#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${file:/etc/hostname"}}}}"#, "a.env.K has a ${file: without its closing }"),
    (#"{"mcpServers": {"a": {"command": "x", "envFile": "/no/such/.env"}}}"#, "a.envFile names /no/such/.env, which cannot be read"),
    (#"{"mcpServers": {"a": {"command": "x", "timeout": "soon"}}}"#, "a.timeout must be a number of seconds"),
  ])
  func refuses(_ text: String, _ expected: String) {
    #expect { try MCPConfigurationFile.servers(in: Data(text.utf8)) } throws: { error in
      "\(error)".contains(expected)
    }
  }
}
