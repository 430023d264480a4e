import ArgumentParser
import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIProcess
import HybridCommandLine
import HybridOnDeviceCommandLine

/// `hybrid demo` — the guided tour: the on-device model, a streamed conversation, guided generation
/// and tools, the four inference modes against a `hybrid serve` started on a free loopback port,
/// custom models deployed to its registry and downloaded, TensorFlow Lite, and fallbacks.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "A guided tour of HybridAI on this machine.")

  @OptionGroup var modelOptions: ModelOptions
  @OptionGroup var logging: LoggingOptions

  /// The free-text answers of the tour, for the repetition report at its end.
  static let answers = RepetitionTally()

  static let script = [
    "Hi! In one sentence, what is Swift?",
    "Thanks! Say goodbye in French.",
  ]

  func run() async throws {
    logging.bootstrap()
    let model = try modelOptions.makeModel()
    heading("1. The on-device model")
    Terminal.write("  file:         \(model.modelPath)\n")
    Terminal.write("  availability: \(model.availability)\(model.availabilityDetail.map { " — \($0)" } ?? "")\n")
    guard model.isAvailable else {
      Terminal.status("error: the on-device model is unavailable; run scripts/bootstrap (or `make demo`).")
      throw ExitCode.failure
    }

    heading("2. A conversation, streamed (greedy sampling; each turn reuses the cached prefix)")
    let session = GenerativeModelSession(model: model, instructions: "You are a concise, friendly assistant.")
    let options = Self.onDeviceOptions(maximumResponseTokens: 60)
    for prompt in Self.script {
      Terminal.write("\n  you> \(prompt)\n  \(model.modelIdentifier)> ")
      let response = try await Terminal.printStreaming(session.streamResponse(to: prompt, options: options))
      Self.answers.record(response.content)
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

    try await tourGuidedGeneration(model)
    try await tourInferenceModes(onDevice: model, history: session.transcript)
  }

  // MARK: - Guided generation and tools

  private func tourGuidedGeneration(_ model: SystemLanguageModel) async throws {
    heading("4. A structured answer: a @Generable type, decoded under a grammar compiled from its schema")
    let session = GenerativeModelSession(model: model)
    let stream = session.streamResponse(
      to: "Write a short guide to Paris.", generating: CityGuide.self,
      options: Self.onDeviceOptions(maximumResponseTokens: 120))
    var snapshots = 0
    for try await snapshot in stream {
      snapshots += 1
      if snapshots == 1 { Terminal.write("  first partial value: city = \(snapshot.content.city ?? "…")\n") }
    }
    let guide = try await stream.collect()
    Terminal.write("  \(snapshots) partial values streamed; the final one:\n")
    Terminal.write("  city: \(guide.content.city), country: \(guide.content.country), rating: \(guide.content.rating)/5\n")
    Terminal.write("  sights: \(guide.content.sights.joined(separator: " · "))\n")
    Terminal.write("  JSON: \(guide.rawContent)\n")

    heading("5. A tool call: the model calls `calculator` (arguments valid by construction), then answers")
    let toolSession = GenerativeModelSession(
      model: model, tools: DemoTools.all, instructions: "Use the calculator for arithmetic.",
      toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools))
    Terminal.write("  you> Use the calculator to multiply 127 by 49.\n  ai> ")
    let response = try await Terminal.printStreaming(toolSession.streamResponse(
      to: "Use the calculator to multiply 127 by 49.",
      options: Self.onDeviceOptions(maximumResponseTokens: 100, toolChoice: .required(tools: ["calculator"]))))
    Terminal.write("\n")
    for line in DemoTools.callLines(response.transcriptEntries) { Terminal.write("    ↳ [tool] \(line)\n") }
  }

  // MARK: - Hybrid inference

  private func tourInferenceModes(onDevice: SystemLanguageModel, history: Transcript) async throws {
    heading("6. Our own Gemini-compatible cloud: `hybrid serve` on a free loopback port")
    try? FileManager.default.removeItem(at: Self.deliveryDirectory)
    let registryDirectory = Self.deliveryDirectory.appendingPathComponent("registry")
    let server = try await ServerProcess(
      executable: Executables.current,
      arguments: ["--model", "smollm2=\(onDevice.modelPath)", "--api-key", Self.apiKey, "--max-concurrent-requests", "2",
                  "--context-size", "2048", "--data", registryDirectory.path, "--admin-token", Self.adminToken])
    Terminal.write("  listening on \(server.baseURL.absoluteString) (API key required: \(Self.apiKey); "
      + "model registry in \(registryDirectory.path))\n")
    let cloud = GeminiModel(name: "smollm2", apiKey: Self.apiKey, baseURL: server.baseURL)
    let offDevice = SystemLanguageModel(
      modelPath: onDevice.modelPath, configuration: .init(contextSize: onDevice.configuration.contextSize, isEnabled: false))

    heading("7. The four inference modes (each request is routed afresh)")
    let options = GenerationOptions.hybrid(
      gemini: GenerationConfig(temperature: 0, maxOutputTokens: 24),
      onDevice: Self.onDeviceOptions(maximumResponseTokens: 24))
    let prompt = "In a few words: why is the sky blue?"
    let modes: [(String, any LanguageModel)] = [
      ("prefer on-device", HybridModel(primary: onDevice, secondary: cloud)),
      ("prefer cloud", HybridModel(primary: cloud, secondary: onDevice)),
      ("only on-device", onDevice),
      ("only cloud", cloud),
      ("prefer on-device, on-device switched off", HybridModel(primary: offDevice, secondary: cloud)),
    ]
    var allAsExpected = true
    for (name, sessionModel) in modes {
      allAsExpected = await ask(prompt, mode: name, model: sessionModel, options: options) && allAsExpected
    }

    Terminal.write("\n  [only cloud, structured: responseJsonSchema, enforced by the server's grammar] you> A short guide to Rome.\n")
    do {
      let guide = try await GenerativeModelSession(model: cloud).respond(
        to: "Write a short guide to Rome.", generating: CityGuide.self,
        options: .hybrid(gemini: GenerationConfig(temperature: 0, maxOutputTokens: 120), onDevice: GenerationOptions()))
      Terminal.write("  ai> \(guide.rawContent)\n    ↳ decoded as CityGuide: \(guide.content.city), \(guide.content.sights.count) sights\n")
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      allAsExpected = false
    }

    heading("8. A conversation moves between models: the on-device chat from step 2 continues in the cloud")
    allAsExpected = await ask("What did I ask you first?", mode: "only cloud, with the on-device history", model: cloud,
                              options: options, history: history) && allAsExpected

    do {
      let selfie = try await tourModelDelivery(server: server.baseURL)
      try tourTensorFlowLite(modelPath: selfie.path)
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      allAsExpected = false
    }
    allAsExpected = await tourDeliveredLanguageModel(server: server.baseURL, cloud: cloud, onDevicePath: onDevice.modelPath)
      && allAsExpected

    heading("12. The cloud goes away: the server is stopped (SIGTERM, graceful)")
    let stopped = await server.stop()
    Terminal.write("  server exited with status \(stopped.status)\n")
    allAsExpected = await ask(prompt, mode: "prefer cloud", model: HybridModel(primary: cloud, secondary: onDevice),
                              options: options) && allAsExpected
    allAsExpected = await ask(prompt, mode: "only cloud (no fallback: a typed offline error)", model: cloud,
                              options: options, expectsError: true) && allAsExpected
    allAsExpected = await tourArtifacts(onDevice) && allAsExpected
    allAsExpected = await tourPhoto(onDevice) && allAsExpected
    allAsExpected = await tourWebChat(modelPath: onDevice.modelPath) && allAsExpected
    if let summary = Self.answers.summary {
      heading("Answer quality: how much the free-text answers repeat themselves (a looping small model scores high)")
      Terminal.write("  \(summary)\n")
    }
    printWebChatAddress()
    guard allAsExpected else {
      Terminal.status("error: some step of the tour did not go as described above")
      throw ExitCode.failure
    }
  }

  /// Asks one question in a fresh session and prints who answered; `false` if the outcome was not
  /// the expected one (an error, or an answer from the wrong source).
  func ask(_ prompt: String, mode: String, model: any LanguageModel, options: GenerationOptions,
           history: Transcript = Transcript(), expectsError: Bool = false, expectedSource: ModelSource? = nil) async -> Bool {
    Terminal.write("\n  [\(mode)] you> \(prompt)\n")
    let session = GenerativeModelSession(model: model, transcript: history)
    do {
      let response = try await Terminal.printStreaming(session.streamResponse(to: prompt, options: options), prefix: "  ai> ")
      Self.answers.record(response.content)
      let raw = response.rawResponse
      Terminal.write("\n    ↳ answered \(raw.source) by \(raw.modelVersion)"
        + (raw.fallback.map { " · fallback: \($0)" } ?? " · no fallback") + "\n")
      if let expectedSource, raw.source != expectedSource {
        Terminal.write("    ↳ expected an answer from \(expectedSource)\n")
        return false
      }
      return !expectsError
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      return expectsError
    }
  }

  func heading(_ text: String) {
    Terminal.write("\n== \(text)\n")
  }
}
