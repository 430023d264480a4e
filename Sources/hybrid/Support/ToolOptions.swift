import ArgumentParser
import Foundation
import HybridAI
import HybridAIMCP

/// Options that give a session tools: the demo tools, and those of MCP servers.
struct ToolOptions: ParsableArguments, Sendable {
  enum Choice: String, ExpressibleByArgument, CaseIterable {
    case auto, required, none
  }

  @Flag(name: .long, help: "Let the model call the demo tools (calculator, current_time, speak, write_file); each call, its progress and the files it makes are shown.")
  var tools = false

  @OptionGroup var mcpServers: MCPServerOptions

  @Option(name: .long, help: "With tools: auto (the model decides), required (it must call a tool first) or none.")
  var toolChoice: Choice = .auto

  @Option(name: .long, help: ArgumentHelp(
    "With --tools: the model must call this tool before it answers (implies --tool-choice required; repeat to allow several).",
    valueName: "name"))
  var requiredTool: [String] = []

  @Option(name: .long, help: "With tools: rounds of tool calls before the model must answer.")
  var maxToolRounds = 3

  func validate() throws {
    if maxToolRounds < 1 { throw ValidationError("--max-tool-rounds must be at least 1") }
    guard !requiredTool.isEmpty else { return }
    guard hasTools else { throw ValidationError("--required-tool needs --tools, --mcp-config or --mcp") }
    if toolChoice == .none { throw ValidationError("--required-tool conflicts with --tool-choice none") }
    guard mcpServers.isEmpty else { return }   // an MCP server's tools are known once it runs
    let known = Set(DemoTools.all.map(\.name))
    for name in requiredTool where !known.contains(name) {
      throw ValidationError("--required-tool \(name): no such tool (the tools are \(known.sorted().joined(separator: ", ")))")
    }
  }

  /// Whether any tool is offered.
  var hasTools: Bool { tools || !mcpServers.isEmpty }

  /// The tools for a session: the demo tools with `--tools`, and the toolbox of the MCP servers
  /// (a tool catalog: a server may change its tools), whose servers are started now (stop them with
  /// its `close()`); servers whose configuration allows sampling have it answered by `model`.
  func sessionTools(model: any LanguageModel) async throws -> (tools: [any Tool], toolbox: MCPToolbox?) {
    let demo: [any Tool] = tools ? DemoTools.all : []
    let servers = try mcpServers.servers()
    guard !servers.isEmpty else { return (demo, nil) }
    return (demo, try await MCPToolbox.connect(servers, samplingModel: model, roots: mcpServers.roots))
  }

  var policy: ToolExecutionPolicy { ToolExecutionPolicy(maximumRounds: maxToolRounds, limit: .answerWithoutTools) }

  /// `options` with the tool choice of `--tool-choice` and `--required-tool` applied.
  func applied(to options: GenerationOptions) -> GenerationOptions {
    guard hasTools else { return options }
    var options = options
    if !requiredTool.isEmpty {
      options.toolChoice = .required(tools: requiredTool)
      return options
    }
    switch toolChoice {
    case .auto: options.toolChoice = .automatic
    case .required: options.toolChoice = .required()
    case .none: options.toolChoice = ToolChoice.none
    }
    return options
  }
}
