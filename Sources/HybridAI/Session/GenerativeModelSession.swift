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
public final class GenerativeModelSession: Sendable {
  /// The model that answers.
  public let model: any LanguageModel
  /// The tools the model may call.
  public let tools: [any Tool]
  /// How the tool loop runs.
  public let toolPolicy: ToolExecutionPolicy

  struct State {
    var transcript: Transcript
    var isResponding = false
  }
  let state: Mutex<State>
  let modelState = ModelStateStore()
  let logger: Logger

  /// A session with optional tools and instructions that guide every answer.
  public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String? = nil,
                          toolPolicy: ToolExecutionPolicy = .default) {
    var transcript = Transcript()
    let instructions = instructions ?? ""
    if !instructions.isEmpty || !tools.isEmpty {
      transcript.append(.instructions(Transcript.Instructions(text: instructions, toolDefinitions: tools.map(\.definition))))
    }
    self.init(model: model, tools: tools, transcript: transcript, toolPolicy: toolPolicy)
  }

  /// A session that continues the conversation recorded in `transcript` (give it the same tools
  /// to continue a conversation that used them).
  public init(model: some LanguageModel, tools: [any Tool] = [], transcript: Transcript,
              toolPolicy: ToolExecutionPolicy = .default) {
    self.model = model
    self.tools = tools
    self.toolPolicy = toolPolicy
    self.state = Mutex(State(transcript: transcript))
    var logger = Logger(label: "HybridAI.session")
    logger[metadataKey: "session"] = "\(UUID().uuidString.prefix(8))"
    logger[metadataKey: "model"] = "\(model.modelIdentifier)"
    self.logger = logger
  }

  /// The conversation so far.
  public var transcript: Transcript { state.withLock { $0.transcript } }

  /// Whether the session is answering a request right now.
  public var isResponding: Bool { state.withLock { $0.isResponding } }

  // MARK: - Text

  /// Answers `prompt`, waiting for the whole answer.
  @discardableResult
  public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
    try await streamResponse(to: prompt, options: options).collect()
  }

  /// Answers `prompt` as a stream of growing snapshots. Generation starts when iteration starts;
  /// use ``ResponseStream/collect()`` for the final ``Response``.
  public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
    stream(prompt, options: options, format: nil, decoding: AnswerDecoding(partial: { $0 }, final: { $0 }))
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
    return stream(prompt, options: options, format: format, decoding: .structured(Content.self))
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
    return stream(prompt, options: options, format: format, decoding: .structured(GeneratedContent.self))
  }

  // MARK: - Running a request

  private func stream<Content: Generable>(
    _ prompt: String, options: GenerationOptions, format: ResponseFormat?, decoding: AnswerDecoding<Content>
  ) -> ResponseStream<Content> {
    ResponseStream { continuation in
      let task = Task { await self.answer(prompt, options: options, format: format, decoding: decoding, into: continuation) }
      continuation.onTermination = { _ in task.cancel() }
      return task
    }
  }

  private func answer<Content: Generable>(
    _ prompt: String, options: GenerationOptions, format: ResponseFormat?, decoding: AnswerDecoding<Content>,
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
    do {
      let promptEntry = Transcript.Prompt(text: prompt, options: options, responseFormat: format)
      let turn = try await runTurn(promptEntry, history: history) { text in
        if let partial = decoding.partial(text) {
          continuation.yield(.snapshot(.init(content: partial, rawContent: text)))
        }
      }
      let content = try decoding.final(turn.text)
      state.withLock { $0.transcript.append(contentsOf: turn.entries) }
      outcome = .success(Response(content: content, rawContent: turn.text, transcriptEntries: turn.entries, rawResponse: turn.rawResponse))
    } catch {
      outcome = .failure(error)
    }
    // Free the session before the caller hears the outcome, so it can send the next request at once.
    endResponding()
    switch outcome {
    case .success(let response):
      continuation.yield(.completed(response))
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
