import ArgumentParser

/// `hybrid` — HybridAI's command-line tool.
@main
struct HybridCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hybrid",
    abstract: "Hybrid on-device + cloud generative AI for Swift on Linux.",
    subcommands: [DemoCommand.self, GenerateCommand.self, ChatCommand.self, ServeCommand.self, ModelsCommand.self, DevicesCommand.self,
                  SessionsCommand.self,
                  TFLiteCommand.self, BenchCommand.self])
}
