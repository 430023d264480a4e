import ArgumentParser

/// `hybrid mcp` — the MCP servers a configuration names.
struct MCPCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mcp",
    abstract: "Work with MCP servers (Model Context Protocol).",
    subcommands: [MCPListCommand.self])
}
