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

  @Option(name: .long, help: ArgumentHelp(
    "The MCP servers of this configuration file (the mcpServers JSON that Claude Desktop, VS Code and Cursor read): their tools are offered. Repeatable.",
    valueName: "file"))
  var mcpConfig: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "An MCP server to start over stdio, as a command line (e.g. \"uvx mcp-server-time\"): its tools are offered. Repeatable.",
    valueName: "command"))
  var mcp: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "A folder MCP servers may work in (their roots/list). Repeatable; default: none.", valueName: "folder"))
  var mcpRoot: [String] = []

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
    do { _ = try mcpServers() } catch { throw ValidationError("--mcp-config: \(error)") }
    if mcp.contains(where: { Self.words($0).isEmpty }) { throw ValidationError("--mcp needs a command") }
    for folder in mcpRoot {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("--mcp-root \(folder): not a folder")
      }
    }
    guard !requiredTool.isEmpty else { return }
    guard hasTools else { throw ValidationError("--required-tool needs --tools, --mcp-config or --mcp") }
    if toolChoice == .none { throw ValidationError("--required-tool conflicts with --tool-choice none") }
    guard mcpConfig.isEmpty && mcp.isEmpty else { return }   // an MCP server's tools are known once it runs
    let known = Set(DemoTools.all.map(\.name))
    for name in requiredTool where !known.contains(name) {
      throw ValidationError("--required-tool \(name): no such tool (the tools are \(known.sorted().joined(separator: ", ")))")
    }
  }

  /// Whether any tool is offered.
  var hasTools: Bool { tools || !mcpConfig.isEmpty || !mcp.isEmpty }

  /// The MCP servers of `--mcp-config` files (read each time: a file that cannot be used throws) and
  /// `--mcp` command lines (named `mcp1`, `mcp2`, …).
  func mcpServers() throws(MCPError) -> [MCPServerConfiguration] {
    var fromFiles: [MCPServerConfiguration] = []
    for file in mcpConfig { fromFiles += try MCPConfigurationFile.servers(at: URL(fileURLWithPath: file)) }
    let fromCommands = mcp.enumerated().compactMap { index, line -> MCPServerConfiguration? in
      let words = Self.words(line)
      guard let command = words.first else { return nil }
      return MCPServerConfiguration(name: "mcp\(index + 1)", command: command, arguments: Array(words.dropFirst()))
    }
    return fromFiles + fromCommands
  }

  /// The tools for a session: the demo tools with `--tools`, and the toolbox of the MCP servers
  /// (a tool catalog: a server may change its tools), whose servers are started now (stop them with
  /// its `close()`); servers whose configuration allows sampling have it answered by `model`.
  func sessionTools(model: any LanguageModel) async throws -> (tools: [any Tool], toolbox: MCPToolbox?) {
    let demo: [any Tool] = tools ? DemoTools.all : []
    let servers = try mcpServers()
    guard !servers.isEmpty else { return (demo, nil) }
    let roots = mcpRoot.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
    return (demo, try await MCPToolbox.connect(servers, samplingModel: model, roots: roots))
  }

  /// A command line's words, split at spaces; single or double quotes keep spaces inside a word.
  static func words(_ line: String) -> [String] {
    var words: [String] = [], current = "", quote: Character?, inWord = false
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
      } else if character == "\"" || character == "'" {
        quote = character
        inWord = true
      } else if character.isWhitespace {
        if inWord { words.append(current); current = ""; inWord = false }
      } else {
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
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
