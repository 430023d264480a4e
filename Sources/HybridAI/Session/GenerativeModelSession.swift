import Foundation
import Logging
import Synchronization

/// A conversation with a language model.
///
/// ```swift
/// let session = GenerativeModelSession(model: SystemLanguageModel.default,
///                                      instructions: "Answer in one sentence.")
/// let response = try await session.respond(to: "Why is the sky blue?")
/// print(response.content, response.rawResponse.modelVersion, response.usage)
///
/// let recipe = try await session.respond(to: "A pancake recipe", generating: Recipe.self).content
/// ```
///
/// The session keeps the ``transcript``; each request sends the whole conversation to the model,
/// which may reuse what it has cached from earlier turns. With tools, `respond` runs the tool loop:
/// the model's tool calls are run and their outputs sent back until the model answers. One request
/// at a time: a second concurrent request throws ``GenerationError/concurrentRequests``. Cancelling
/// the calling task stops generation promptly and leaves the transcript as it was.
///
/// Tools may return artifacts (images, audio, files: ``ToolOutput/artifacts``). The session keeps
/// each in its ``artifactStore``, gives the model only a one-line reference
/// (``ArtifactReference/modelDescription``, never bytes or paths), records the references on the
/// transcript's tool-output entry and returns them, with local file URLs, in
/// ``Response/artifacts``. A structured answer may name them: string values that name an artifact
/// become its file URL (``ArtifactLinks``). ``ResponseStream/events`` reports the model chosen,
/// text, tool calls, their progress and their artifacts as they happen; ``toolEvents`` reports the
/// tool activity of every request, for observers of `respond`.
public final class GenerativeModelSession: Sendable {
  /// The model that answers.
  public let model: any LanguageModel
  /// The tools the model may call now: those given, then the current ones of each tool catalog.
  public var tools: [any Tool] { fixedTools + toolCatalogs.flatMap(\.tools) }
  /// The tools given as a list.
  let fixedTools: [any Tool]
  /// Tool lists that may change between turns (``ToolCatalog``).
  public let toolCatalogs: [any ToolCatalog]
  /// How the tool loop runs.
  public let toolPolicy: ToolExecutionPolicy
  /// What happens when the conversation no longer fits the model's context window.
  public let contextPolicy: ContextPolicy

  struct State {
    var transcript: Transcript
    var isResponding = false
    var usage = Usage.zero
  }
  let state: Mutex<State>
  let modelState = ModelStateStore()
  let logger: Logger
  /// Where the session keeps artifacts: the store given to the initialiser, or one in memory.
  public let artifactStore: any ArtifactStore
  let toolActivity = ToolActivityBroadcaster()

  /// A session with optional tools and instructions that guide every answer.
  ///
  /// - Parameter artifactStore: Where the files tools and the model make, and copies of attached
  ///   files, are kept. With `nil` (the default) the session keeps them in memory
  ///   (``InMemoryArtifactStore``) and writes nothing to the disk; pass a `FileArtifactStore`
  ///   (module `HybridAIFileStorage`) in your app's data directory to keep them as files, with
  ///   file URLs in the references.
  /// - Parameter contextPolicy: What to do when the conversation outgrows the model's context
  ///   window: throw (the default), drop the oldest turns, or summarize them (see ``ContextPolicy``).
  /// - Parameter toolCatalogs: Tool lists that may change while the session lives (an MCP
  ///   server's): each turn offers their tools as they are when it starts.
  public convenience init(model: some LanguageModel, tools: [any Tool] = [], toolCatalogs: [any ToolCatalog] = [],
                          instructions: String? = nil, toolPolicy: ToolExecutionPolicy = .default,
                          contextPolicy: ContextPolicy = .fail, artifactStore: (any ArtifactStore)? = nil) {
    var transcript = Transcript()
    let instructions = instructions ?? ""
    let offered = tools + toolCatalogs.flatMap(\.tools)
    if !instructions.isEmpty || !offered.isEmpty {
      transcript.append(.instructions(Transcript.Instructions(text: instructions, toolDefinitions: offered.map(\.definition))))
    }
    self.init(model: model, tools: tools, toolCatalogs: toolCatalogs, transcript: transcript, toolPolicy: toolPolicy,
              contextPolicy: contextPolicy, artifactStore: artifactStore)
  }

  /// A session that continues the conversation recorded in `transcript` (give it the same tools
  /// to continue a conversation that used them, and the store holding its artifacts).
  ///
  /// - Parameter artifactStore: Where artifacts are kept; `nil` (the default) keeps them in
  ///   memory, as in ``init(model:tools:toolCatalogs:instructions:toolPolicy:contextPolicy:artifactStore:)``.
  public init(model: some LanguageModel, tools: [any Tool] = [], toolCatalogs: [any ToolCatalog] = [], transcript: Transcript,
              toolPolicy: ToolExecutionPolicy = .default, contextPolicy: ContextPolicy = .fail,
              artifactStore: (any ArtifactStore)? = nil) {
    self.model = model
    self.fixedTools = tools
    self.toolCatalogs = toolCatalogs
    self.toolPolicy = toolPolicy
    self.contextPolicy = contextPolicy
    self.state = Mutex(State(transcript: transcript))
    let sessionID = UUID().uuidString.lowercased()
    self.artifactStore = artifactStore ?? InMemoryArtifactStore()
    var logger = Logger(label: "HybridAI.session")
    logger[metadataKey: "session"] = "\(sessionID.prefix(8))"
    logger[metadataKey: "model"] = "\(model.modelIdentifier)"
    self.logger = logger
  }

  /// The conversation so far.
  public var transcript: Transcript { state.withLock { $0.transcript } }

  /// Whether the session is answering a request right now.
  public var isResponding: Bool { state.withLock { $0.isResponding } }

  /// The token counts of every answer the session object has received, summed (tool rounds and
  /// the summaries its ``contextPolicy`` had written included). A session made from a saved
  /// transcript starts at zero.
  public var usage: Usage { state.withLock { $0.usage } }

  /// What the session's tools are doing, as it happens: each access returns a new stream that
  /// receives every ``ToolActivity`` from then on (calls started and finished, progress reports,
  /// artifacts created) until its consumer stops iterating or the session is released.
  ///
  /// ```swift
  /// let events = session.toolEvents
  /// Task { for await event in events { if case .progress(_, let fraction, let message) = event { show(fraction, message) } } }
  /// let response = try await session.respond(to: "Read it aloud")
  /// ```
  /// Subscribe before sending the request to see all of its events.
  public var toolEvents: AsyncStream<ToolActivity> { toolActivity.subscribe() }

  // MARK: - Text

  /// Answers `prompt`, waiting for the whole answer.
  @discardableResult
  public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
    try await streamResponse(to: prompt, options: options).collect()
  }

  /// Answers `prompt` as a stream of growing snapshots. Generation starts when iteration starts;
  /// use ``ResponseStream/collect()`` for the final ``Response``.
  public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
    stream(Prompt(prompt), options: options, format: nil, decoding: .text)
  }

  // MARK: - Structured answers

  /// Answers `prompt` with a value of `type`. On-device models are constrained to the type's
  /// schema while decoding; a cloud answer that does not decode throws
  /// ``GenerationError/invalidStructuredOutput(rawContent:reason:)``.
  ///
  /// - Parameter includeSchemaInPrompt: also describe the schema in the prompt (helps small models
  ///   choose good values; the schema is enforced either way).
  public func respond<Content: Generable>(
    to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) async throws -> Response<Content> {
    try await streamResponse(to: prompt, generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options).collect()
  }

  /// Answers `prompt` with a value of `type`, as a stream of partially generated values.
  public func streamResponse<Content: Generable>(
    to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) -> ResponseStream<Content> {
    let format = ResponseFormat(type: Content.self, includeSchemaInPrompt: includeSchemaInPrompt)
    return stream(Prompt(prompt), options: options, format: format, decoding: .structured(Content.self))
  }

  /// Answers `prompt` with JSON following `schema` (a schema known only at run time).
  public func respond(
    to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) async throws -> Response<GeneratedContent> {
    try await streamResponse(to: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options).collect()
  }

  /// Answers `prompt` with JSON following `schema`, as a stream of partial values.
  public func streamResponse(
    to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) -> ResponseStream<GeneratedContent> {
    let format = ResponseFormat(schema: schema, includeSchemaInPrompt: includeSchemaInPrompt)
    return stream(Prompt(prompt), options: options, format: format, decoding: .structured(GeneratedContent.self))
  }

  // MARK: - Running a request

  func stream<Content: Generable>(
    _ prompt: Prompt, options: GenerationOptions, format: ResponseFormat?, decoding: AnswerDecoding<Content>
  ) -> ResponseStream<Content> {
    // A structured answer gets the loop penalty unless the options say otherwise: a string the
    // grammar keeps open can otherwise repeat itself until the token limit.
    var options = options
    if format != nil, options.loopPenalty == nil { options.loopPenalty = .standard }
    return ResponseStream { [options] continuation in
      let task = Task { await self.answer(prompt, options: options, format: format, decoding: decoding, into: continuation) }
      continuation.onTermination = { _ in task.cancel() }
      return task
    }
  }

  private func answer<Content: Generable>(
    _ prompt: Prompt, options: GenerationOptions, format: ResponseFormat?, decoding: AnswerDecoding<Content>,
    into continuation: ResponseStream<Content>.Continuation
  ) async {
    let history: Transcript
    do {
      history = try beginResponding()
    } catch {
      continuation.finish(throwing: error)
      return
    }
    let outcome: Result<Response<Content>, any Error>
    let turnArtifacts = TurnArtifacts()
    let broadcaster = toolActivity
    let events = TurnEvents(
      text: { delta, text in
        continuation.yield(.event(.textDelta(delta)))
        if let partial = decoding.partial(text) {
          continuation.yield(.snapshot(.init(content: partial, rawContent: text)))
        }
      },
      modelSelected: { model, fallback in continuation.yield(.event(.modelSelected(model, fallback: fallback))) },
      tool: { activity in
        broadcaster.send(activity)
        continuation.yield(.event(.init(activity)))
      },
      artifact: { reference in continuation.yield(.event(.generatedArtifact(reference))) })
    do {
      let segments = try storeAttachments(of: prompt, turn: turnArtifacts)
      let promptEntry = Transcript.Prompt(segments: segments, options: options, responseFormat: format)
      let turn = try await runTurn(promptEntry, history: history, artifacts: turnArtifacts, events: events)
      let links = ArtifactLinks(turnArtifacts: turn.artifacts, store: artifactStore)
      let content: Content
      do {
        content = try decoding.final(turn.text, links)
      } catch GenerationError.invalidStructuredOutput(let raw, _) where turn.rawResponse.finishReason == .maxTokens {
        throw GenerationError.exceededTokenLimit(maximumTokens: options.maximumResponseTokens, rawContent: raw)
      }
      state.withLock { state in
        if let compacted = turn.compactedHistory { state.transcript = compacted }
        state.transcript.append(contentsOf: turn.entries)
        state.usage.add(turn.rawResponse.usage)
        if let summaryUsage = turn.compaction?.summaryUsage { state.usage.add(summaryUsage) }
      }
      outcome = .success(Response(content: content, rawContent: turn.text, transcriptEntries: turn.entries,
                                  rawResponse: turn.rawResponse, artifacts: turn.artifacts,
                                  contextCompaction: turn.compaction))
    } catch {
      // The turn's entries are not committed: its artifacts would be referenced by nothing.
      turnArtifacts.removeAll()
      outcome = .failure(GenerationError.translating(error))
    }
    // Free the session before the caller hears the outcome, so it can send the next request at once.
    endResponding()
    switch outcome {
    case .success(let response):
      continuation.yield(.event(.completed(response)))
      continuation.finish()
    case .failure(let error):
      if !(error is CancellationError) {
        logger.debug("request failed", metadata: ["error": "\(error)"])
      }
      continuation.finish(throwing: error)
    }
  }

  private func beginResponding() throws -> Transcript {
    try state.withLock { state in
      guard !state.isResponding else { throw GenerationError.concurrentRequests }
      state.isResponding = true
      return state.transcript
    }
  }

  private func endResponding() {
    state.withLock { $0.isResponding = false }
  }
}
