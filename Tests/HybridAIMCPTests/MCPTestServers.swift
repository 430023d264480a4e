import Foundation
import HybridAIMCP
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
