/// Tools whose list may change while a session lives: an MCP server that adds and removes tools
/// (`tools/list_changed`), a plug-in folder. A session asks for ``tools`` at the start of every
/// turn, so a change takes effect from the next turn on; a turn keeps the list it started with.
///
/// ```swift
/// let toolbox = try await MCPToolbox.connect(servers)   // a ToolCatalog
/// let session = GenerativeModelSession(model: model, toolCatalogs: [toolbox])
/// ```
public protocol ToolCatalog: Sendable {
  /// The tools offered now.
  var tools: [any Tool] { get }
}
