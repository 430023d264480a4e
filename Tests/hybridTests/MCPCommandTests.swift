import Foundation
@testable import hybrid
import HybridAIProcess
import HybridAIServerTestSupport
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
    // Room for a loaded machine, where the Python server's start alone took over a minute.
    try Data(#"{"mcpServers": {"time": {"command": "\#(Self.python)", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"], "timeout": 300}}}"#.utf8)
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

  @Test("hybrid chat --mcp-config: \"what time is it in Tokyo?\" is answered on device through mcp-server-time's tool")
  func chatWithAServer() async throws {
    let directory = try TemporaryDirectory("mcp-chat")
    defer { directory.remove() }
    let config = directory.appending("mcp.json")
    try Data(#"{"mcpServers": {"time": {"command": "\#(TestRepository.dependency("mcp-venv/bin/mcp-server-time").path)", "timeout": 300}}}"#.utf8)
      .write(to: config)
    let result = try await cli.run(["chat", "--mcp-config", config.path, "--required-tool", "get_current_time",
                                    "--max-tool-rounds", "1", "--greedy", "--max-tokens", "40"],
                                   input: "What time is it in Tokyo?\n/exit\n")
    #expect(result.status == 0, "\(result.stderr)")
    #expect((result.stdout + result.stderr).contains("get_current_time"), "the call is shown: \(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("on-device") || result.stderr.contains("SmolLM2"), "answered on device: \(result.stderr)")
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

  @Test("hybrid mcp list: each server's tools with their arguments, refused tools with why, a server that cannot start beside the others (exit 1)")
  func list() async throws {
    let directory = try TemporaryDirectory("mcp-list")
    defer { directory.remove() }
    let config = directory.appending("mcp.json")
    let misbehaving = TestRepository.file("Tests/HybridAIMCPTests/Servers/misbehaving_server.py").path
    try Data(#"""
      {"mcpServers": {
        "time": {"command": "\#(Self.python)", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "odd": {"command": "\#(Self.python)", "args": ["\#(misbehaving)", "--mode", "bad-schema"]},
        "ghost": {"command": "no-such-mcp-server"}}}
      """#.utf8).write(to: config)
    // Python servers start slowly while the whole suite shares two cores: five minutes a request.
    let listed = try await cli.run(["mcp", "list", "--mcp-config", config.path, "--timeout", "300"])
    #expect(listed.status == 1, "\(listed.stderr)")
    for line in ["ghost: cannot be used — the MCP server ghost could not be started", "odd: 1 tool, 2 refused", "  echo(text: string)",
                 "  refused broken: its input schema is not a JSON Schema: `/properties` is a string", "time: 2 tools",
                 "  get_current_time(timezone: string)", "  convert_time(source_timezone: string, target_timezone: string, time: string)"] {
      #expect(listed.stdout.contains(line), "\(line) in:\n\(listed.stdout)")
    }

    let json = try await cli.run(["mcp", "list", "--mcp-config", config.path, "--json", "--timeout", "300"])
    let servers = try #require(try cli.json(json.stdout)["servers"] as? [[String: Any]], "\(json.stdout)")
    #expect(servers.map { $0["name"] as? String } == ["ghost", "odd", "time"])
    #expect((servers[0]["error"] as? [String: Any])?["kind"] as? String == "mcp.launchFailed")
    #expect((servers[1]["refused"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["broken", "scalar"])
    let time = try #require(servers[2]["tools"] as? [[String: Any]])
    #expect(time.compactMap { $0["name"] as? String }.sorted() == ["convert_time", "get_current_time"])
    #expect(time.allSatisfy { ($0["inputSchema"] as? [String: Any])?["type"] as? String == "object" })

    let one = try await cli.run(["mcp", "list", "--mcp", "\(Self.python) -m mcp_server_time", "--timeout", "300"])
    #expect(one.status == 0 && one.stdout.hasPrefix("mcp1: 2 tools"), "\(one.stdout)\(one.stderr)")
    let none = try await cli.run(["mcp", "list"])
    #expect(none.status == 64 && none.stderr.contains("name the servers with --mcp-config FILE or --mcp COMMAND"), "\(none.stderr)")
  }

  @Test("hybrid serve --mcp-api-model: the OpenAI API's answer is made in rounds, the server calling an MCP server's tools in between")
  func serverSideTools() async throws {
    let data = HybridCommandTests.scratchRegistry()
    defer { try? FileManager.default.removeItem(atPath: data) }
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    let config = URL(fileURLWithPath: data).appendingPathComponent("mcp.json")
    try Data(#"{"mcpServers": {"time": {"command": "\#(Self.python)", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"], "timeout": 300}}}"#.utf8)
      .write(to: config)
    let server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data, "--max-concurrent-requests", "1", "--context-size", "2048",
      "--no-chat", "--mcp-config", config.path, "--mcp-api-model", "smollm2"])
    defer { server.terminate() }
    let base = server.baseURL.absoluteString
    let reply = try await TestHTTP.send(.POST, URL(string: base + "/v1/chat/completions")!, json: [
      "model": "smollm2", "max_tokens": 40, "temperature": 0, "tool_choice": "required",
      "messages": [["role": "user", "content": "What time is it in Tokyo?"]],
    ])
    #expect(reply.status == 200, "\(reply.text)")
    let message = try #require((try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any], "\(reply.text)")
    #expect(message["tool_calls"] == nil, "the server's tools stay on the server: \(reply.text)")
    // Each round is a generation of the model: one request answered in two or more.
    let metrics = try await TestHTTP.send(.GET, URL(string: base + "/metrics")!).text
    let generations = metrics.split(separator: "\n").filter { $0.hasPrefix(#"hybrid_generation_requests_total{model="smollm2""#) }
      .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    #expect(generations >= 2, "\(metrics)")
  }

  @Test("command lines split like a shell's words, quotes keeping spaces")
  func words() {
    #expect(MCPServerOptions.words(#"uvx mcp-server-time --local-timezone "America/New York""#)
      == ["uvx", "mcp-server-time", "--local-timezone", "America/New York"])
    #expect(MCPServerOptions.words("  a  'b c' \"\" d ") == ["a", "b c", "", "d"])
    #expect(MCPServerOptions.words("   ").isEmpty)
  }
}
