import ArgumentParser
import Foundation
import HybridAI
import HybridAIMCP
import HybridCommandLine

/// `hybrid mcp list` — starts each configured MCP server and prints the tools it offers.
struct MCPListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "Start each MCP server and print its tools (exits 1 when a server cannot be used).",
    discussion: """
      Each server is started (or reached) on its own, so one that fails does not hide the others;
      a tool whose input schema is not a JSON Schema is listed as refused, with why.
      Example: hybrid mcp list --mcp-config deploy/mcp-servers.json
      """)

  @OptionGroup var servers: MCPServerOptions

  @Option(name: .long, help: "Seconds each server has to answer a request.")
  var timeout = 60

  @Flag(name: .long, help: "Print one JSON object: each server with its tools (name, description, inputSchema), refused tools and error.")
  var json = false

  func validate() throws {
    if servers.isEmpty { throw ValidationError("name the servers with --mcp-config FILE or --mcp COMMAND") }
    if timeout < 1 { throw ValidationError("--timeout must be at least 1") }
  }

  func run() async throws {
    var reports: [ServerReport] = []
    for server in try servers.servers() {
      if !json { Terminal.status("starting \(server.name)…") }
      reports.append(await ServerReport(server, timeout: .seconds(timeout), roots: servers.roots))
    }
    if json {
      JSONOutput.print(["servers": reports])
    } else {
      Terminal.write(reports.map(\.text).joined(separator: "\n") + "\n")
    }
    if reports.contains(where: { $0.error != nil }) { throw ExitCode.failure }
  }
}

/// What `hybrid mcp list` found on one server.
private struct ServerReport: Encodable {
  struct ListedTool: Encodable {
    var name: String
    var description: String
    var inputSchema: JSONValue
  }
  struct RefusedTool: Encodable {
    var name: String
    var reason: String
  }

  var name: String
  var tools: [ListedTool] = []
  var refused: [RefusedTool] = []
  var error: ErrorReport.Body?

  init(_ server: MCPServerConfiguration, timeout: Duration, roots: [URL]) async {
    name = server.name
    do {
      let toolbox = try await MCPToolbox.connect([server], requestTimeout: timeout, roots: roots)
      tools = toolbox.mcpTools.map { ListedTool(name: $0.name, description: $0.description, inputSchema: $0.parameters.jsonSchema) }
      refused = toolbox.refusedTools.compactMap { refusal in
        guard case .invalidToolSchema(_, let tool, let reason) = refusal else { return nil }
        return RefusedTool(name: tool, reason: "its input schema \(reason)")
      }
      await toolbox.close()
    } catch {
      self.error = ErrorReport(error).error
    }
  }

  /// The report as lines: the server, then each tool with its arguments and the first line of its description.
  var text: String {
    if let error { return "\(name): cannot be used — \(error.message)" }
    var lines = ["\(name): \(tools.count) tool\(tools.count == 1 ? "" : "s")" + (refused.isEmpty ? "" : ", \(refused.count) refused")]
    for tool in tools {
      lines.append("  \(tool.name)(\(Self.arguments(of: tool.inputSchema)))")
      let summary = tool.description.split(separator: "\n").first.map(String.init) ?? ""
      if !summary.isEmpty { lines.append("      \(summary.count > 100 ? summary.prefix(99) + "…" : summary)") }
    }
    for tool in refused { lines.append("  refused \(tool.name): \(tool.reason)") }
    return lines.joined(separator: "\n")
  }

  /// `name: type` for each property of an object schema, `?` after the name of one not required.
  private static func arguments(of schema: JSONValue) -> String {
    guard case .object(let fields) = schema, case .object(let properties)? = fields["properties"] else { return "" }
    var required: Set<String> = []
    if case .array(let names)? = fields["required"] {
      for case .string(let name) in names { required.insert(name) }
    }
    return properties.keys.sorted().map { name in
      var type = "any"
      if case .object(let property)? = properties[name], case .string(let named)? = property["type"] { type = named }
      return "\(name)\(required.contains(name) ? "" : "?"): \(type)"
    }.joined(separator: ", ")
  }
}
