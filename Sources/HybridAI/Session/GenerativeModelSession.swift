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
/// ```
///
/// The session keeps the ``transcript``; each request sends the whole conversation to the model,
/// which may reuse what it has cached from earlier turns. One request at a time: a second
/// concurrent request throws ``GenerationError/concurrentRequests``. Cancelling the calling task
/// stops generation promptly and leaves the transcript as it was.
public final class GenerativeModelSession: Sendable {
  /// The model that answers.
  public let model: any LanguageModel

  private struct State {
    var transcript: Transcript
    var isResponding = false
  }
  private let state: Mutex<State>
  private let modelState = ModelStateStore()
  private let logger: Logger

  /// A session with optional instructions that guide every answer.
  public convenience init(model: some LanguageModel, instructions: String? = nil) {
    var transcript = Transcript()
    if let instructions, !instructions.isEmpty {
      transcript.append(.instructions(Transcript.Instructions(text: instructions)))
    }
    self.init(model: model, transcript: transcript)
  }

  /// A session that continues the conversation recorded in `transcript`.
  public init(model: some LanguageModel, transcript: Transcript) {
    self.model = model
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

  /// Answers `prompt`, waiting for the whole answer.
  @discardableResult
  public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
    try await streamResponse(to: prompt, options: options).collect()
  }

  /// Answers `prompt` as a stream of growing snapshots. Generation starts when iteration starts;
  /// use ``ResponseStream/collect()`` for the final ``Response``.
  public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
    ResponseStream { continuation in
      let task = Task { await self.answer(prompt, options: options, into: continuation) }
      continuation.onTermination = { _ in task.cancel() }
      return task
    }
  }

  // MARK: - Answering

  private func answer(_ prompt: String, options: GenerationOptions,
                      into continuation: ResponseStream<String>.Continuation) async {
    let history: Transcript
    do {
      history = try beginResponding()
    } catch {
      continuation.finish(throwing: error)
      return
    }
    let outcome: Result<Response<String>, any Error>
    do {
      outcome = .success(try await generate(prompt, options: options, history: history, snapshots: continuation))
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

  private func generate(_ prompt: String, options: GenerationOptions, history: Transcript,
                        snapshots continuation: ResponseStream<String>.Continuation) async throws -> Response<String> {
    let promptEntry = Transcript.Prompt(text: prompt, options: options)
    var requestTranscript = history
    requestTranscript.append(.prompt(promptEntry))
    let request = GenerationRequest(transcript: requestTranscript, options: options, sessionState: modelState)

    try await checkModelCanServe(request)
    let started = ContinuousClock.now
    var text = ""
    var completion: RawResponse?
    for try await event in model.generate(request) {
      switch event {
      case .textDelta(let delta):
        text += delta
        continuation.yield(.snapshot(.init(content: text, rawContent: text)))
      case .completed(let raw):
        completion = raw
      }
    }
    try Task.checkCancellation()
    guard let completion else { throw GenerationError.incompleteResponse(modelVersion: model.modelIdentifier) }

    let responseEntry = Transcript.Response(
      text: text, modelVersion: completion.modelVersion, providerContent: completion.providerContent)
    let newEntries: [Transcript.Entry] = [.prompt(promptEntry), .response(responseEntry)]
    state.withLock { $0.transcript.append(contentsOf: newEntries) }
    logger.debug("answered", metadata: [
      "modelVersion": "\(completion.modelVersion)",
      "source": "\(completion.source)",
      "promptTokens": "\(completion.usage.promptTokens)",
      "cachedPromptTokens": "\(completion.usage.cachedPromptTokens)",
      "outputTokens": "\(completion.usage.outputTokens)",
      "finishReason": "\(completion.finishReason)",
      "seconds": "\((ContinuousClock.now - started).seconds)",
    ])
    return Response(content: text, rawContent: text, transcriptEntries: newEntries, rawResponse: completion)
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

  private func checkModelCanServe(_ request: GenerationRequest) async throws {
    if case .unavailable(let reason) = model.availability {
      throw GenerationError.modelUnavailable(reason, detail: model.availabilityDetail ?? model.modelIdentifier)
    }
    if case .unsupported(let reason) = await model.supports(request) {
      throw GenerationError.unsupported(reason)
    }
  }
}
