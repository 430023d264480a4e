import ArgumentParser
import Foundation
import HybridAI
import HybridAIOnDevice

/// `hybrid` — HybridAI's command-line tool.
@main
struct HybridCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hybrid",
    abstract: "Hybrid on-device + cloud generative AI for Swift on Linux.",
    version: HybridAIVersion.current,
    subcommands: [DemoCommand.self, GenerateCommand.self, ChatCommand.self, EmbedCommand.self, ServeCommand.self, ModelsCommand.self, DevicesCommand.self, MCPCommand.self,
                  SessionsCommand.self, KeysCommand.self,
                  TFLiteCommand.self, BenchCommand.self])

  /// Runs the command, then frees llama.cpp's contexts, weights and backend before the process
  /// exits, whatever the command did: left to the exit, a GPU's contexts are freed after the CUDA
  /// driver has gone, and the process aborts.
  static func main() async {
    var failure: (any Error)?
    var running: (any ParsableCommand.Type)?
    do {
      var command = try parseAsRoot()
      running = type(of: command)
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      failure = error
    }
    await OnDeviceRuntime.shutDown()
    if let failure, let running, let mistake = failure as? ValidationError {
      exitForMistake(mistake, in: running)
    }
    if let failure { exit(withError: failure) }
  }

  /// A mistake found while a command runs (no admin token, a key file that is a folder): said with
  /// that command's usage line, where ArgumentParser would print the root's (`hybrid <subcommand>`).
  private static func exitForMistake(_ mistake: ValidationError, in command: any ParsableCommand.Type) -> Never {
    let usage = usageString(for: command)
    let name = usage.prefix { $0 != "<" && $0 != "[" }.trimmingCharacters(in: .whitespaces)
    FileHandle.standardError.write(Data("Error: \(mistake.message)\nUsage: \(usage)\n  See '\(name) --help' for more information.\n".utf8))
    Foundation.exit(ExitCode.validationFailure.rawValue)
  }
}
