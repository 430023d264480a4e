import ArgumentParser
import Dispatch
import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIPersistence
import HybridCommandLine
import HybridOnDeviceCommandLine

/// `hybrid chat` — an interactive conversation with streamed answers.
struct ChatCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat",
    abstract: "Chat on-device, in the cloud, or hybrid (--mode).",
    discussion: """
      Type a message and press Enter. /attach FILE adds a file (image, audio, video, PDF or text, its kind read \
      from its bytes) to your next message. /reset starts over, /usage shows the conversation's token counts so far, \
      /help lists the commands, /exit (or Ctrl-D) quits; Ctrl-C stops an answer. Any other /word is refused as an \
      unknown command; start a message with // to send one that begins with /. The exit status is 1 when an \
      answer or a save failed. The on-device model answers with the loop penalty 0.8 \
      unless --loop-penalty says otherwise. After each answer a line shows the model, its usage \
      (prompt, cached, output, reasoning) and what the context policy did. \
      --session ID saves the conversation (and the files tools make) after every answer and resumes it next time. \
      --required-tool NAME (with --tools) makes the model call that tool before it answers, e.g. \
      `hybrid chat --tools --required-tool speak --max-tool-rounds 1`.
      """)

  @OptionGroup var tools: ToolOptions

  @Option(name: .long, help: "Save this conversation under ID (letters, digits, '-', '_'), resuming it if it exists.")
  var session: String?

  @OptionGroup var store: SessionStoreOptions

  @OptionGroup var conversation: ConversationOptions
  @OptionGroup var modelOptions: ModelOptions
  @OptionGroup var routing: RoutingOptions
  @OptionGroup var sampling: SamplingOptions
  @OptionGroup var logging: LoggingOptions

  /// The commands, as `/help` lists them.
  static let commandHelp = """
    /attach FILE  add a file to your next message (image, audio, video, PDF or text)
    /reset        start a new conversation
    /usage        token counts so far and the context used
    /help         this list
    /exit         quit (also /quit, Ctrl-D); Ctrl-C stops an answer
    //text        send a message that starts with /
    """

  func validate() throws {
    if let session, !SessionStore.isValidSessionID(session) {
      throw ValidationError("--session \(String(reflecting: session)) is not a session id: use 1 to 64 characters from A-Z, a-z, 0-9, _ and -")
    }
  }

  func run() async throws {
    logging.bootstrap()
    let model: any LanguageModel
    do {
      model = try await routing.makeSessionModel(onDevice: modelOptions)
    } catch {
      try ModelFetchExitCode.exitIfModelFetchFailure(error)
    }
    if case .unavailable(let reason) = model.availability {
      Terminal.status("error: the model is unavailable: \(reason) — \(model.availabilityDetail ?? "")")
      throw ExitCode.failure
    }
    Terminal.status("Chatting with \(model.modelIdentifier) (\(routing.effectiveMode.rawValue)). /attach FILE adds a file to your next message, /reset starts over, /usage shows token counts, /help lists the commands, /exit quits, Ctrl-C stops an answer.")
    let interrupts = InterruptHandler()
    let (sessionTools, toolbox) = try await tools.sessionTools(model: model)
    defer { if let toolbox { Task { await toolbox.close() } } }
    let toolCatalogs: [any ToolCatalog] = toolbox.map { [$0] } ?? []
    if tools.hasTools {
      Terminal.status("Tools: \((sessionTools + toolCatalogs.flatMap(\.tools)).map(\.name).joined(separator: ", "))")
    }
    let sessionStore = try session.map { _ in try store.open() }
    let artifacts = try ConversationArtifacts.kept(in: sessionStore?.artifactStore)
    var session: GenerativeModelSession
    if let id = self.session, let sessionStore, (try? sessionStore.record(id: id)) != nil {
      session = try sessionStore.makeSession(id: id, model: model, tools: sessionTools, toolCatalogs: toolCatalogs, toolPolicy: tools.policy,
                                             contextPolicy: conversation.contextPolicy.policy)
      Terminal.status("(resumed session \(id): \(session.transcript.count) entries)")
    } else {
      session = GenerativeModelSession(model: model, tools: sessionTools, toolCatalogs: toolCatalogs, instructions: conversation.instructions,
                                       toolPolicy: tools.policy, contextPolicy: conversation.contextPolicy.policy,
                                       artifactStore: artifacts.store)
    }
    var activity = ToolActivityDisplay.watch(session)
    defer { activity.cancel() }
    // Without --session the copies of attached files go at exit; the model's files stay.
    interrupts.onExit = { [session] in artifacts.finish(session) }
    defer { artifacts.finish(session) }
    var pendingAttachments: [Attachment] = []
    var failures = 0
    conversation: while true {
      Terminal.write("you> ")
      guard let line = readLine() else {
        Terminal.write("\n")
        break
      }
      var prompt = line.trimmingCharacters(in: .whitespaces)
      switch prompt {
      case "": continue
      case "/exit", "/quit":
        break conversation
      case "/help":
        Terminal.status(Self.commandHelp)
        continue
      case "/usage":
        let usage = session.usage
        Terminal.status("  [session: prompt \(usage.promptTokens) tokens (\(usage.cachedPromptTokens) cached) · output "
          + "\(usage.outputTokens) (\(usage.reasoningTokens) reasoning) · total \(usage.totalTokens) · context now "
          + "\((try? await session.tokenCount()).map(String.init) ?? "?") of \((try? await session.contextSize).map(String.init) ?? "?") tokens]")
        continue
      case let command where command.hasPrefix("/attach"):
        let path = command.dropFirst("/attach".count).trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else {
          Terminal.status("  usage: /attach FILE")
          continue
        }
        do {
          let attachment = try Attachment(commandLinePath: path)
          pendingAttachments.append(attachment)
          Terminal.status("  (attached \(attachment.name): \(attachment.mimeType), \(attachment.size) bytes; sent with your next message)")
        } catch {
          Terminal.status("error: \(error)")
        }
        continue
      case "/reset":
        if artifacts.isTemporary { session.removeAttachmentCopies() }
        session = GenerativeModelSession(model: model, tools: sessionTools, toolCatalogs: toolCatalogs, instructions: conversation.instructions,
                                         toolPolicy: tools.policy, contextPolicy: conversation.contextPolicy.policy,
                                       artifactStore: artifacts.store)
        interrupts.onExit = { [session] in artifacts.finish(session) }
        activity.cancel()
        activity = ToolActivityDisplay.watch(session)
        Terminal.status("(new conversation)")
        continue
      case let escaped where escaped.hasPrefix("//"):
        prompt.removeFirst()   // a message that starts with /
      case let command where command.wholeMatch(of: /\/[A-Za-z][\w-]*(\s.*)?/) != nil:
        Terminal.status("  unknown command \(command.prefix { !$0.isWhitespace }) (not sent to the model); /help lists the commands, // starts a message with /")
        continue
      default: break
      }
      Terminal.write("ai> ")
      let current = session
      let options = tools.applied(to: sampling.chatOptions)
      let message = Prompt(parts: [.text(prompt)] + pendingAttachments.map(Prompt.Part.attachment))
      pendingAttachments.removeAll()
      let answer = Task {
        try await Terminal.printStreaming(current.streamResponse(to: message, options: options))
      }
      interrupts.onInterrupt = { answer.cancel() }
      do {
        let response = try await answer.value
        Terminal.write("\n")
        for line in DemoTools.callLines(response.transcriptEntries) { Terminal.status("  [tool] \(line)") }
        for file in response.artifacts {
          Terminal.status("  [file] \(file.name) \(file.mimeType), \(file.size) bytes: \(file.fileURL?.path ?? "not stored")")
        }
        Terminal.status("  [\(ResponseReport.summary(response))]")
        if let id = self.session, let sessionStore {
          do {
            _ = try sessionStore.save(current, id: id)
          } catch {
            failures += 1
            Terminal.status("error: the session could not be saved: \(error)")
          }
        }
      } catch is CancellationError {
        Terminal.write("\n")
        Terminal.status("  [stopped]")
      } catch {
        failures += 1
        Terminal.write("\n")
        Terminal.status("error: \(error)")
      }
      interrupts.onInterrupt = nil
    }
    if failures > 0 { throw ExitCode.failure }
  }
}
