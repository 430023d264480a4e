import Foundation
import HybridAIMCP
import HybridAITestSupport

/// The MCP servers the tests start: the reference `mcp-server-time` from PyPI and the tests' own
/// (Servers/test_server.py), both on the bootstrap's `.deps/mcp-venv`.
enum MCPTestServers {
  static var python: String { TestRepository.dependency("mcp-venv/bin/python").path }

  static var time: MCPServerConfiguration {
    MCPServerConfiguration(name: "time", command: python, arguments: ["-m", "mcp_server_time", "--local-timezone", "UTC"])
  }

  static var own: MCPServerConfiguration {
    MCPServerConfiguration(name: "own", command: python,
                           arguments: [TestRepository.file("Tests/HybridAIMCPTests/Servers/test_server.py").path])
  }
}
