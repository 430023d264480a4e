import ArgumentParser
import Foundation
import HybridAI
import HybridAIOnDevice
import HybridCommandLine
import HybridOnDeviceCommandLine

/// `hybrid generate` — one prompt, one answer, streamed or as JSON; optionally structured by a
/// JSON Schema, optionally with the demo tools.
struct GenerateCommand: AsyncParsableCommand, Sendable {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Answer one prompt, on-device, in the cloud, or hybrid (--mode).",
    discussion: """
      The prompt is the argument or --prompt; "-" reads it from standard input \
      (cat notes.txt | hybrid generate -).

      With --schema FILE.json the answer is JSON that follows the schema (on-device: guaranteed by \
      constrained decoding; cloud: responseJsonSchema). It is printed alone on stdout, or as "json" in \
      the --json object.
      """)

  @Argument(help: ArgumentHelp("The prompt; - reads it from standard input.", valueName: "prompt"))
  var promptArgument: String?

  @Option(name: .long, help: "The prompt (the same as the argument).")
  var prompt: String?

  @Option(name: .long, help: ArgumentHelp(
    "Attach a file: an image, audio, video, PDF or text file, its kind read from its bytes (repeatable).", valueName: "file"))
  var attach: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "Ask for an answer that may also hold this kind (image, audio; repeatable): Gemini's responseModalities. "
      + "A model that cannot give it is routed around.", valueName: "kind"))
  var responseModality: [Modality] = []

  @Option(name: .long, help: "A JSON Schema file: answer with a JSON instance of it.")
  var schema: String?

  @OptionGroup var tools: ToolOptions

  @Flag(name: .long, help: "Print one JSON object: text, attachments, artifacts, json (with --schema), toolCalls, modelVersion, source, fallbackReason, usage, finishReason, timings (and logProbabilities).")
  var json = false

  @Option(name: .long, help: ArgumentHelp(
    "Show each answer token's log probability and the N most likely tokens at its position (0…20).",
    discussion: "On-device, hybrid serve and OpenAI-compatible or Gemini clouds that give them; with --json as logProbabilities, else a line per token on stderr.",
    valueName: "N"))
  var logProbabilities: Int?

  @OptionGroup var conversation: ConversationOptions
  @OptionGroup var modelOptions: ModelOptions
  @OptionGroup var routing: RoutingOptions
  @OptionGroup var sampling: SamplingOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    if let logProbabilities, !(0...TokenLogProbability.maximumAlternatives).contains(logProbabilities) {
      throw ValidationError("--log-probabilities must be within 0…\(TokenLogProbability.maximumAlternatives), got \(logProbabilities)")
    }
    switch (promptArgument, prompt) {
    case (nil, nil):
      throw ValidationError("Missing the prompt: hybrid generate \"Why is the sky blue?\" (or --prompt TEXT; - reads it from standard input)")
    case (_?, _?):
      throw ValidationError("Give the prompt once: as the argument or with --prompt, not both")
    default:
      break
    }
  }

  /// The prompt's text: the argument's or `--prompt`'s, or standard input's for `-` (one trailing
  /// line break dropped); an empty standard input is an error.
  private func promptText() throws -> String {
    let given = promptArgument ?? prompt ?? ""
    guard given == "-" else { return given }
    var text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    if text.hasSuffix("\n") { text.removeLast() }
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw ValidationError("the prompt was to come from standard input (-), which held none")
    }
    return text
  }

  func run() async throws {
    logging.bootstrap()
    // Standard input is read before anything loads, so a missing prompt costs no model load.
    let text: String
    do {
      text = try promptText()
    } catch {
      report(error)
      throw ExitCode.validationFailure
    }
    // Ctrl-C, from the start: loading stops or the answer stops (what was written stays); --json
    // prints a "cancelled" error; exit 130.
    let answer = Task { try await loadAndAnswer(text) }
    let interrupts = InterruptHandler()
    interrupts.onInterrupt = { answer.cancel() }
    do {
      try await answer.value
    } catch where error is CancellationError || answer.isCancelled {
      if json { JSONOutput.print(ErrorReport(CancellationError())) } else { Terminal.write("\n"); Terminal.status("  [stopped]") }
      throw ExitCode(130)
    } catch {
      if !json, error is PartialAnswerFailure { Terminal.write("\n") }
      report(error)
      if !json, error is PartialAnswerFailure { Terminal.status("  [the answer above is incomplete]") }
      throw ExitCode(ModelFetchExitCode.status(for: error) ?? 1)
    }
  }

  /// A failure on stderr, or as the `--json` error object.
  private func report(_ error: any Error) {
    if json { JSONOutput.print(ErrorReport(error)) } else { Terminal.status("error: \(error)") }
  }

  /// Makes the model and the session, and answers.
  private func loadAndAnswer(_ text: String) async throws {
    let model = try await routing.makeSessionModel(onDevice: modelOptions)
    try Task.checkCancellation()
    let (sessionTools, toolbox) = try await tools.sessionTools(model: model)
    defer { if let toolbox { Task { await toolbox.close() } } }
    let artifacts = try ConversationArtifacts.temporary()
    let session = GenerativeModelSession(model: model, tools: sessionTools, toolCatalogs: toolbox.map { [$0] } ?? [],
                                         instructions: conversation.instructions, toolPolicy: tools.policy,
                                         contextPolicy: conversation.contextPolicy.policy, artifactStore: artifacts.store)
    // The copies of --attach files go when the command ends (before a --json report is made, so it
    // lists no path that is gone); the files the model and its tools made stay.
    defer { artifacts.finish(session) }
    var options = tools.applied(to: sampling.generationOptions)
    if !responseModality.isEmpty { options.responseModalities = Set(responseModality).union([.text]) }
    options.logProbabilities = logProbabilities
    try await answer(text, in: session, artifacts: artifacts, options: options)
  }

  /// Answers the prompt and prints the answer (streamed, as JSON, or the structured JSON alone).
  private func answer(_ text: String, in session: GenerativeModelSession, artifacts: ConversationArtifacts,
                      options: GenerationOptions) async throws {
    let prompt = try makePrompt(text)
    if let schemaPath = schema {
      let schema = try Self.loadSchema(at: schemaPath)
      let response = try await Terminal.collect(session.streamResponse(to: prompt, schema: schema, options: options))
      printToolCalls(of: response.transcriptEntries)
      if json {
        artifacts.finish(session)
        JSONOutput.print(ResponseReport(response, structured: response.content, store: session.artifactStore))
      } else {
        Terminal.write(response.content.jsonString + "\n")
      }
    } else if json {
      let response = try await Terminal.collect(session.streamResponse(to: prompt, options: options))
      printToolCalls(of: response.transcriptEntries)
      artifacts.finish(session)
      JSONOutput.print(ResponseReport(response, store: session.artifactStore))
    } else {
      let response = try await Terminal.printStreaming(session.streamResponse(to: prompt, options: options))
      Terminal.write("\n")
      printToolCalls(of: response.transcriptEntries)
      for artifact in response.artifacts {
        Terminal.status("  [file] \(artifact.name) \(artifact.mimeType), \(artifact.size) bytes: \(artifact.fileURL?.path ?? "not stored")")
      }
      if logProbabilities != nil {
        let entries = response.rawResponse.logProbabilities
        if entries == nil { Terminal.status("  [logprobs] the model gave none") }
        for line in ResponseReport.logProbabilityLines(entries ?? []) { Terminal.status("  [logprob] \(line)") }
      }
    }
  }

  /// The prompt with `--attach` files (paths resolved against the current directory).
  private func makePrompt(_ text: String) throws -> Prompt {
    var parts: [Prompt.Part] = [.text(text)]
    for path in attach { parts.append(.attachment(try Attachment(commandLinePath: path))) }
    return Prompt(parts: parts)
  }

  private func printToolCalls(of entries: [Transcript.Entry]) {
    guard !json else { return }
    for line in DemoTools.callLines(entries) { Terminal.status("  [tool] \(line)") }
  }

  /// Reads a JSON Schema file; a clear error when it is missing or not a schema.
  static func loadSchema(at path: String) throws -> GenerationSchema {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ValidationError("cannot read the schema file \(path)")
    }
    do {
      return try GenerationSchema(jsonSchemaText: String(decoding: data, as: UTF8.self))
    } catch {
      throw ValidationError("\(path) is not a JSON Schema: \(error)")
    }
  }
}
