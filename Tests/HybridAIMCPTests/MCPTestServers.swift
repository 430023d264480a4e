import Foundation
import HybridAIMCP
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport

/// The MCP servers the tests start: the reference `mcp-server-time` and `mcp-server-git` from PyPI and the tests' own
/// (Servers/test_server.py), both on the bootstrap's `.deps/mcp-venv`.
enum MCPTestServers {
  /// The request time limit the tests use: MCP's default minute is too short for a Python server's
  /// start while the whole suite shares two cores.
  static let requestTimeout: Duration = .seconds(300)

  static var python: String { TestRepository.dependency("mcp-venv/bin/python").path }

  static var time: MCPServerConfiguration {
    MCPServerConfiguration(name: "time", command: python, arguments: ["-m", "mcp_server_time", "--local-timezone", "UTC"])
  }

  /// The reference `mcp-server-git`, working on `repository`.
  static func git(_ repository: URL) -> MCPServerConfiguration {
    MCPServerConfiguration(name: "git", command: python, arguments: ["-m", "mcp_server_git", "--repository", repository.path])
  }

  static var own: MCPServerConfiguration {
    MCPServerConfiguration(name: "own", command: python,
                           arguments: [TestRepository.file("Tests/HybridAIMCPTests/Servers/test_server.py").path])
  }
}

extension MCPTestServers {
  static var misbehavingScript: String { TestRepository.file("Tests/HybridAIMCPTests/Servers/misbehaving_server.py").path }

  /// The tests' server that breaks the protocol in the way `mode` names (see misbehaving_server.py).
  static func misbehaving(_ mode: String) -> MCPServerConfiguration {
    MCPServerConfiguration(name: mode, command: python, arguments: [misbehavingScript, "--mode", mode])
  }

  /// Starts `arguments` (a Python script and its arguments, `--http PORT` among them) and waits
  /// until it listens on `port`: Python and its libraries load in about a second on a quiet machine,
  /// longer while the whole suite runs.
  static func startHTTPServer(_ arguments: [String], port: Int) async throws -> RunningChildProcess {
    let process = try await ChildProcess(executable: python, arguments: arguments).start(standardError: .collected)
    let deadline = ContinuousClock.now + .seconds(90)
    while process.isRunning, ContinuousClock.now < deadline {
      if (try? RawHTTPConnection(port: port)) != nil { return process }
      try await Task.sleep(for: .milliseconds(50))
    }
    let outcome = await process.stop()
    throw MCPError.launchFailed(server: "test HTTP server", reason: "it did not listen on \(port): \(outcome.standardError)")
  }
}
