import Foundation
@testable import hybrid
import HybridAITestSupport
import Testing

/// `hybrid generate --mcp` / `--mcp-config`: the real model calls a tool of the reference
/// `mcp-server-time` (started over stdio from the bootstrap's `.deps/mcp-venv`), its arguments held
/// to the tool's input schema by the grammar.
@Suite("hybrid generate with MCP servers", .serialized)
struct MCPCommandTests {
  let cli = HybridCommandTests()
  static var python: String { TestRepository.dependency("mcp-venv/bin/python").path }

  @Test("--mcp COMMAND and --mcp-config FILE: the model calls get_current_time and the server's answer comes back")
  func toolFromAServer() async throws {
    let directory = try TemporaryDirectory("mcp-cli")
    defer { directory.remove() }
    let config = directory.appending("mcp.json")
    try Data(#"{"mcpServers": {"time": {"command": "\#(Self.python)", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}}}"#.utf8)
      .write(to: config)
    for source in [["--mcp", "\(Self.python) -m mcp_server_time --local-timezone UTC"], ["--mcp-config", config.path]] {
      let result = try await cli.run(["generate", "--prompt", "What time is it in Tokyo?", "--required-tool", "get_current_time",
                                      "--max-tool-rounds", "1", "--greedy", "--max-tokens", "40", "--json"] + source)
      #expect(result.status == 0, "\(source): \(result.stderr)")
      let calls = try #require(try cli.json(result.stdout)["toolCalls"] as? [[String: Any]], "\(result.stdout)")
      let call = try #require(calls.first)
      #expect(call["name"] as? String == "get_current_time")
      let output = call["output"] as? String ?? ""
      #expect(output.contains("\"datetime\"") || output.contains("Invalid timezone"), "the server answered: \(output)")
    }
  }

  @Test("a configuration file or root folder that cannot be used exits 64; a server that cannot start exits 1 with mcp.launchFailed")
  func badServers() async throws {
    let directory = try TemporaryDirectory("mcp-cli-bad")
    defer { directory.remove() }
    let config = directory.appending("mcp.json")
    try Data(#"{"mcpServers": {"web": {"url": "https://example.org/mcp", "type": "sse"}}}"#.utf8).write(to: config)
    let invalid = try await cli.run(["generate", "--prompt", "Hi", "--mcp-config", config.path])
    #expect(invalid.status == 64 && invalid.stderr.contains("uses transport \"sse\""), "\(invalid.stderr)")
    let noFolder = try await cli.run(["generate", "--prompt", "Hi", "--mcp", "x", "--mcp-root", "/no/such/folder"])
    #expect(noFolder.status == 64 && noFolder.stderr.contains("--mcp-root /no/such/folder: not a folder"), "\(noFolder.stderr)")
    let missing = try await cli.run(["generate", "--prompt", "Hi", "--mcp", "no-such-mcp-server --flag", "--json"])
    #expect(missing.status == 1, "\(missing.stderr)")
    let error = try #require(try cli.json(missing.stdout)["error"] as? [String: Any], "\(missing.stdout)")
    #expect(error["kind"] as? String == "mcp.launchFailed")
  }

  @Test("command lines split like a shell's words, quotes keeping spaces")
  func words() {
    #expect(ToolOptions.words(#"uvx mcp-server-time --local-timezone "America/New York""#)
      == ["uvx", "mcp-server-time", "--local-timezone", "America/New York"])
    #expect(ToolOptions.words("  a  'b c' \"\" d ") == ["a", "b c", "", "d"])
    #expect(ToolOptions.words("   ").isEmpty)
  }
}
