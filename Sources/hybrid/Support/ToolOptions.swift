import ArgumentParser
import HybridAI

/// Options that give a session the demo tools.
struct ToolOptions: ParsableArguments, Sendable {
  enum Choice: String, ExpressibleByArgument, CaseIterable {
    case auto, required, none
  }

  @Flag(name: .long, help: "Let the model call the demo tools (calculator, current_time, speak, write_file); each call, its progress and the files it makes are shown.")
  var tools = false

  @Option(name: .long, help: "With --tools: auto (the model decides), required (it must call a tool first) or none.")
  var toolChoice: Choice = .auto

  @Option(name: .long, help: ArgumentHelp(
    "With --tools: the model must call this tool before it answers (implies --tool-choice required; repeat to allow several).",
    valueName: "name"))
  var requiredTool: [String] = []

  @Option(name: .long, help: "With --tools: rounds of tool calls before the model must answer.")
  var maxToolRounds = 3

  func validate() throws {
    if maxToolRounds < 1 { throw ValidationError("--max-tool-rounds must be at least 1") }
    guard !requiredTool.isEmpty else { return }
    guard tools else { throw ValidationError("--required-tool needs --tools") }
    if toolChoice == .none { throw ValidationError("--required-tool conflicts with --tool-choice none") }
    let known = Set(DemoTools.all.map(\.name))
    for name in requiredTool where !known.contains(name) {
      throw ValidationError("--required-tool \(name): no such tool (the tools are \(known.sorted().joined(separator: ", ")))")
    }
  }

  var sessionTools: [any Tool] { tools ? DemoTools.all : [] }

  var policy: ToolExecutionPolicy { ToolExecutionPolicy(maximumRounds: maxToolRounds, limit: .answerWithoutTools) }

  /// `options` with the tool choice of `--tool-choice` and `--required-tool` applied.
  func applied(to options: GenerationOptions) -> GenerationOptions {
    guard tools else { return options }
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
