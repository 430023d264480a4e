import ArgumentParser
import HybridAI
import HybridAIOnDevice

/// `hybrid generate` — one prompt, one answer, streamed or as JSON.
struct GenerateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Answer one prompt, on-device, in the cloud, or hybrid (--mode).")

  @Option(name: .long, help: "The prompt.")
  var prompt: String

  @Flag(name: .long, help: "Print one JSON object: text, modelVersion, source, fallbackReason, usage, finishReason, timings.")
  var json = false

  @OptionGroup var conversation: ConversationOptions

  func run() async throws {
    conversation.logging.bootstrap()
    let model = conversation.makeSessionModel()
    let session = GenerativeModelSession(model: model, instructions: conversation.instructions)
    do {
      if json {
        JSONOutput.print(ResponseReport(try await session.respond(to: prompt, options: conversation.sampling.generationOptions)))
      } else {
        _ = try await Terminal.printStreaming(
          session.streamResponse(to: prompt, options: conversation.sampling.generationOptions))
        Terminal.write("\n")
      }
    } catch {
      if json { JSONOutput.print(ErrorReport(error)) } else { Terminal.status("error: \(error)") }
      throw ExitCode.failure
    }
  }
}
