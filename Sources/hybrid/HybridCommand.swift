import ArgumentParser
import HybridAIOnDevice

/// `hybrid` — HybridAI's command-line tool.
@main
struct HybridCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hybrid",
    abstract: "Hybrid on-device + cloud generative AI for Swift on Linux.",
    subcommands: [DemoCommand.self, GenerateCommand.self, ChatCommand.self, ServeCommand.self, ModelsCommand.self, DevicesCommand.self,
                  SessionsCommand.self, KeysCommand.self,
                  TFLiteCommand.self, BenchCommand.self])

  /// Runs the command, then frees llama.cpp's contexts, weights and backend before the process
  /// exits, whatever the command did: left to the exit, a GPU's contexts are freed after the CUDA
  /// driver has gone, and the process aborts.
  static func main() async {
    var failure: (any Error)?
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      failure = error
    }
    await OnDeviceRuntime.shutDown()
    if let failure { exit(withError: failure) }
  }
}
