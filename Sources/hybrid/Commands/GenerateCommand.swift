import ArgumentParser
import HybridAI
import HybridAIOnDevice

/// `hybrid generate` — one prompt, one answer, streamed or as JSON.
struct GenerateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Answer one prompt with the on-device model.")

  @Option(name: .long, help: "The prompt.")
  var prompt: String

  @Option(name: .long, help: "Instructions (system prompt) for the model.")
  var instructions: String?

  @Flag(name: .long, help: "Print one JSON object: text, modelVersion, usage, finishReason, timings.")
  var json = false

  @OptionGroup var modelOptions: ModelOptions
  @OptionGroup var sampling: SamplingOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws {
    logging.bootstrap()
    let model = modelOptions.makeModel()
    let session = GenerativeModelSession(model: model, instructions: instructions)
    do {
      if json {
        JSONOutput.print(ResponseReport(try await session.respond(to: prompt, options: sampling.generationOptions)))
      } else {
        let stream = session.streamResponse(to: prompt, options: sampling.generationOptions)
        var printer = Terminal.SnapshotPrinter()
        for try await snapshot in stream { printer.printNew(of: snapshot.content) }
        Terminal.write("\n")
      }
    } catch {
      if json { JSONOutput.print(ErrorReport(error)) } else { Terminal.status("error: \(FailureMessage.describe(error, model: model))") }
      throw ExitCode.failure
    }
  }
}

/// Human-readable failure messages that say what to do.
enum FailureMessage {
  static func describe(_ error: any Error, model: SystemLanguageModel) -> String {
    if case GenerationError.modelUnavailable(let reason, _) = error {
      return "the on-device model is unavailable: \(reason)" + (model.availabilityDetail.map { " — \($0)" } ?? "")
    }
    return String(describing: error)
  }
}
