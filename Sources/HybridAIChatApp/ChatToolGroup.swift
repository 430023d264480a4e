import HybridAI

/// Tools the web chat offers under one name, which the page can switch on and off for a message:
/// the tools of one MCP server, say. The chat's other tools are always offered.
///
/// ```swift
/// let toolbox = try await MCPToolbox.connect(servers)
/// let groups = Dictionary(grouping: toolbox.mcpTools, by: \.serverName)
///   .map { ChatToolGroup(name: $0.key, tools: $0.value) }
/// let sessions = ChatSessions(store: store, models: models, toolGroups: groups)
/// ```
public struct ChatToolGroup: Sendable {
  /// The name the page shows on the group's switch (an MCP server's name).
  public var name: String
  /// The tools, offered together.
  public var tools: [any Tool]

  public init(name: String, tools: [any Tool]) {
    self.name = name
    self.tools = tools
  }
}
