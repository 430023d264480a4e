import ArgumentParser
import HybridAI

/// Options that give a session the demo tools.
struct ToolOptions: ParsableArguments {
  enum Choice: String, ExpressibleByArgument, CaseIterable {
    case auto, required, none
  }

  @Flag(name: .long, help: "Let the model call the demo tools (calculator, current_time, speak, write_file); each call, its progress and the files it makes are shown.")
  var tools = false

  @Option(name: .long, help: "With --tools: auto (the model decides), required (it must call a tool first) or none.")
  var toolChoice: Choice = .auto

  @Option(name: .long, help: "With --tools: rounds of tool calls before the model must answer.")
  var maxToolRounds = 3

  func validate() throws {
    if maxToolRounds < 1 { throw ValidationError("--max-tool-rounds must be at least 1") }
  }

  var sessionTools: [any Tool] { tools ? DemoTools.all : [] }

  var policy: ToolExecutionPolicy { ToolExecutionPolicy(maximumRounds: maxToolRounds, limit: .answerWithoutTools) }

  /// `options` with the tool choice applied.
  func applied(to options: GenerationOptions) -> GenerationOptions {
    guard tools else { return options }
    var options = options
    switch toolChoice {
    case .auto: options.toolChoice = .automatic
    case .required: options.toolChoice = .required()
    case .none: options.toolChoice = ToolChoice.none
    }
    return options
  }
}
