import Foundation
import HybridAI
import Logging
import MCP

/// The tools of several MCP servers, for one session or command: each server started (or reached) and
/// initialized, its tools listed, names kept apart (a name two servers offer is prefixed with each
/// server's name), and every server stopped by ``close()``.
///
/// ```swift
/// let toolbox = try await MCPToolbox.connect(try MCPConfigurationFile.servers(at: configURL))
/// defer { Task { await toolbox.close() } }
/// let session = GenerativeModelSession(model: model, tools: toolbox.tools)
/// ```
public final class MCPToolbox: Sendable {
  public let connections: [MCPServerConnection]
  /// The tools, in the order of the servers and of each server's list.
  public let mcpTools: [MCPTool]

  /// The tools, as a session takes them.
  public var tools: [any HybridAI.Tool] { mcpTools }

  private init(connections: [MCPServerConnection], tools: [MCPTool]) {
    self.connections = connections
    self.mcpTools = tools
  }

  /// Starts every server and lists its tools; when one fails, the ones started are stopped.
  /// Servers whose configuration allows sampling have their completion requests answered by
  /// `samplingModel`; `roots` are the folders every server may work in; `elicitation` answers
  /// servers' requests for the user's input, which are declined without it (see
  /// ``MCPServerConnection/connect(_:requestTimeout:samplingModel:samplingTokenLimit:roots:elicitation:logger:)``).
  public static func connect(_ servers: [MCPServerConfiguration], requestTimeout: Duration = .seconds(60),
                             samplingModel: (any LanguageModel)? = nil, samplingTokenLimit: Int = 1024,
                             roots: [URL] = [], elicitation: MCPElicitationHandler? = nil,
                             logger: Logger = Logger(label: "HybridAI.mcp")) async throws -> MCPToolbox {
    var connections: [MCPServerConnection] = []
    var listed: [(MCPServerConnection, [MCP.Tool])] = []
    do {
      for server in servers {
        let connection = try await MCPServerConnection.connect(server, requestTimeout: requestTimeout, samplingModel: samplingModel,
                                                               samplingTokenLimit: samplingTokenLimit, roots: roots,
                                                               elicitation: elicitation, logger: logger)
        connections.append(connection)
        listed.append((connection, try await connection.tools()))
      }
    } catch {
      for connection in connections { await connection.close() }
      throw error
    }
    var counts: [String: Int] = [:]
    for (_, tools) in listed { for tool in tools { counts[tool.name, default: 0] += 1 } }
    var offered: [MCPTool] = []
    for (connection, tools) in listed {
      for tool in tools {
        let name = counts[tool.name, default: 0] > 1 ? "\(connection.name)_\(tool.name)" : tool.name
        offered.append(MCPTool(tool, offeredAs: Self.toolName(name), connection: connection))
      }
    }
    logger.info("MCP tools ready", metadata: ["tools": "\(offered.map(\.name))"])
    return MCPToolbox(connections: connections, tools: offered)
  }

  /// Stops every server.
  public func close() async {
    for connection in connections { await connection.close() }
  }

  /// `name` as a tool name: letters, digits, `_` and `-` (anything else becomes `_`), at most 64.
  static func toolName(_ name: String) -> String {
    String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" }.prefix(64))
  }
}
