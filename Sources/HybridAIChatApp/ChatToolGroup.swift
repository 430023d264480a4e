import HybridAI

/// Tools the web chat offers under one name, which the page can switch on and off for a message:
/// the tools of one MCP server, say. The chat's other tools are always offered. The group's tools
/// are read for each message, so a catalog that changes (a server's `tools/list_changed`) is
/// followed.
///
/// ```swift
/// let toolbox = try await MCPToolbox.connect(servers)
/// let groups = toolbox.connections.map { ChatToolGroup(name: $0.name, catalog: toolbox.catalog(ofServer: $0.name)) }
/// let sessions = ChatSessions(store: store, models: models, toolGroups: groups)
/// ```
public struct ChatToolGroup: Sendable {
  /// The name the page shows on the group's switch (an MCP server's name).
  public var name: String
  /// Where the group's tools come from.
  public var catalog: any ToolCatalog

  /// The group's tools now.
  public var tools: [any Tool] { catalog.tools }

  /// A group of tools that may change (``HybridAI/ToolCatalog``).
  public init(name: String, catalog: any ToolCatalog) {
    self.name = name
    self.catalog = catalog
  }

  /// A group of these tools.
  public init(name: String, tools: [any Tool]) {
    self.init(name: name, catalog: FixedTools(tools: tools))
  }

  private struct FixedTools: ToolCatalog {
    let tools: [any Tool]
  }
}
