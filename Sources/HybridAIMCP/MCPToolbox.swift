import Foundation
import HybridAI
import Logging
import MCP
import Synchronization

/// The tools of several MCP servers, for one session or command: each server started (or reached) and
/// initialized, its tools listed, names kept apart (a name two servers offer is prefixed with each
/// server's name), and every server stopped by ``close()``. A server that says its tools changed
/// (`tools/list_changed`) is asked for them again; as a ``HybridAI/ToolCatalog`` the toolbox gives a
/// session the new list from its next turn on.
///
/// ```swift
/// let toolbox = try await MCPToolbox.connect(try MCPConfigurationFile.servers(at: configURL))
/// defer { Task { await toolbox.close() } }
/// let session = GenerativeModelSession(model: model, toolCatalogs: [toolbox])
/// ```
public final class MCPToolbox: ToolCatalog {
  public let connections: [MCPServerConnection]
  /// Each server's tools as last listed, in the order of the servers.
  private let listed: Mutex<[[MCP.Tool]]>
  private let offered: Mutex<[MCPTool]>
  private let logger: Logger

  /// The tools now, in the order of the servers and of each server's list.
  public var mcpTools: [MCPTool] { offered.withLock { $0 } }

  /// The tools the servers list but that are not offered, each with why
  /// (``MCPError/invalidToolSchema(server:tool:reason:)``): an input schema that is not a JSON
  /// Schema for an object of arguments would fail every turn that offers it.
  public var refusedTools: [MCPError] {
    listed.withLock { listed in zip(connections, listed).flatMap { connection, tools in tools.compactMap { Self.refusal(of: $0, on: connection.name) } } }
  }

  /// The tools now, as a session takes them.
  public var tools: [any HybridAI.Tool] { mcpTools }

  private init(connections: [MCPServerConnection], listed: [[MCP.Tool]], logger: Logger) {
    self.connections = connections
    self.listed = Mutex(listed)
    self.offered = Mutex(Self.offeredTools(connections: connections, listed: listed))
    self.logger = logger
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
        let connection = try await MCPServerConnection.connect(server, requestTimeout: server.requestTimeout ?? requestTimeout, samplingModel: samplingModel,
                                                               samplingTokenLimit: samplingTokenLimit, roots: roots,
                                                               elicitation: elicitation, logger: logger)
        connections.append(connection)
        listed.append((connection, try await connection.tools()))
      }
    } catch {
      for connection in connections { await connection.close() }
      throw error
    }
    let toolbox = MCPToolbox(connections: connections, listed: listed.map(\.1), logger: logger)
    for refusal in toolbox.refusedTools { logger.warning("\(refusal)") }
    for (index, connection) in connections.enumerated() {
      connection.onToolListChanged { [weak toolbox] in await toolbox?.relist(serverAt: index) }
    }
    logger.info("MCP tools ready", metadata: ["tools": "\(toolbox.mcpTools.map(\.name))"])
    return toolbox
  }

  /// Lists the tools of server `index` again, after it said they changed.
  private func relist(serverAt index: Int) async {
    let connection = connections[index]
    do {
      let tools = try await connection.tools()
      let now = listed.withLock { listed in
        listed[index] = tools
        let now = Self.offeredTools(connections: connections, listed: listed)
        offered.withLock { $0 = now }   // under the first lock: two servers' changes land in order
        return now
      }
      logger.info("MCP tools changed", metadata: ["server": "\(connection.name)", "tools": "\(now.map(\.name))"])
      for tool in tools { if let refusal = Self.refusal(of: tool, on: connection.name) { logger.warning("\(refusal)") } }
    } catch {
      logger.warning("the MCP server's changed tools could not be listed; the old list stays",
                     metadata: ["server": "\(connection.name)", "error": "\(error)"])
    }
  }

  /// The usable tools of every server, a name two servers offer prefixed with each server's name.
  private static func offeredTools(connections: [MCPServerConnection], listed: [[MCP.Tool]]) -> [MCPTool] {
    let usable = zip(connections, listed).map { connection, tools in tools.filter { refusal(of: $0, on: connection.name) == nil } }
    var counts: [String: Int] = [:]
    for tools in usable { for tool in tools { counts[tool.name, default: 0] += 1 } }
    var offered: [MCPTool] = []
    for (connection, tools) in zip(connections, usable) {
      for tool in tools {
        let name = counts[tool.name, default: 0] > 1 ? "\(connection.name)_\(tool.name)" : tool.name
        offered.append(MCPTool(tool, offeredAs: toolName(name), connection: connection))
      }
    }
    return offered
  }

  /// Why `tool` cannot be offered: its input schema is not a JSON Schema, or not one of an object.
  static func refusal(of tool: MCP.Tool, on server: String) -> MCPError? {
    let schema = GenerationSchema(jsonSchema: MCPValueConversion.jsonValue(tool.inputSchema))
    if let malformation = schema.malformation {
      return .invalidToolSchema(server: server, tool: tool.name, reason: "is not a JSON Schema: \(malformation)")
    }
    if case .object(let fields) = schema.jsonSchema, let type = fields["type"], type != "object" {
      return .invalidToolSchema(server: server, tool: tool.name, reason: "describes \(type.jsonString), not an object of arguments")
    }
    return nil
  }

  /// The tools of server `name` alone, as they are now whenever asked (they follow its changes).
  public func catalog(ofServer name: String) -> some ToolCatalog {
    ServerTools(toolbox: self, server: name)
  }

  /// One server's part of a toolbox.
  private struct ServerTools: ToolCatalog {
    let toolbox: MCPToolbox
    let server: String
    var tools: [any HybridAI.Tool] { toolbox.mcpTools.filter { $0.serverName == server } }
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
