import ArgumentParser
import HybridAI
import HybridAIOnDevice

/// `hybrid demo` — the guided tour: a short scripted on-device conversation, streamed.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "A guided tour of HybridAI on this machine.")

  @OptionGroup var modelOptions: ModelOptions
  @OptionGroup var logging: LoggingOptions

  static let script = [
    "Hi! In one sentence, what is Swift?",
    "Name two things it is good for.",
    "Thanks! Say goodbye in French.",
  ]

  func run() async throws {
    logging.bootstrap()
    let model = modelOptions.makeModel()
    heading("1. The on-device model")
    Terminal.write("  file:         \(model.modelPath)\n")
    Terminal.write("  availability: \(model.availability)\(model.availabilityDetail.map { " — \($0)" } ?? "")\n")
    guard model.isAvailable else {
      Terminal.status("error: the on-device model is unavailable; run scripts/bootstrap (or `make demo`).")
      throw ExitCode.failure
    }

    heading("2. A conversation, streamed (greedy sampling; each turn reuses the cached prefix)")
    let session = GenerativeModelSession(model: model, instructions: "You are a concise, friendly assistant.")
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 80)
    for prompt in Self.script {
      Terminal.write("\n  you> \(prompt)\n  \(model.modelIdentifier)> ")
      let response = try await Terminal.printStreaming(session.streamResponse(to: prompt, options: options))
      let usage = response.usage
      Terminal.write("\n    ↳ modelVersion \(response.rawResponse.modelVersion) · prompt \(usage.promptTokens) tokens "
        + "(\(usage.cachedPromptTokens) reused from the cache, \(usage.evaluatedPromptTokens) evaluated) · "
        + "output \(usage.outputTokens) tokens · finish \(response.finishReason)"
        + (response.rawResponse.timings?.generationTokensPerSecond.map { String(format: " · %.0f tok/s", $0) } ?? "")
        + "\n")
    }

    heading("3. The transcript (Codable; a session can be reopened from it)")
    let json = try session.transcript.jsonData()
    Terminal.write("  \(session.transcript.count) entries, \(json.count) bytes of JSON\n")
    let reopened = GenerativeModelSession(model: model, transcript: try Transcript(jsonData: json))
    Terminal.write("  reopened session has \(reopened.transcript.count) entries\n")
  }

  private func heading(_ text: String) {
    Terminal.write("\n== \(text)\n")
  }
}
