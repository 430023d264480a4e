import Foundation
import HybridAI
import HybridAIOpenAIWire
import HybridAIServing
import Hummingbird
import Logging

/// Answers one legacy `completions` request with a served model: each prompt's text continued as it
/// is (no chat template), `n` choices a prompt (choice `p × n + i` is prompt `p`'s choice `i`), all
/// generated side by side; whole, or streamed as `text_completion` chunks ending with `data: [DONE]`.
struct TextCompletionGeneration: Sendable {
  let model: ServedModel
  let logger: Logger

  func generate(_ wire: CompletionRequest) async throws -> Response {
    let requests = try await checkedRequests(wire)
    let count = wire.choiceCount
    let model = self.model
    let answers = try await withThrowingTaskGroup(of: (Int, [ServedModel.WholeAnswer]).self) { group in
      for (index, request) in requests.enumerated() {
        group.addTask { (index, try await model.wholeAnswers(to: request, count: count)) }
      }
      return try await group.reduce(into: [Int: [ServedModel.WholeAnswer]]()) { $0[$1.0] = $1.1 }
    }
    var choices: [Completion.Choice] = [], usages: [Usage] = []
    for (promptIndex, request) in requests.enumerated() {
      let prefix = wire.echo == true ? try request.plainTextPrompt() : ""
      var completions: [RawResponse] = []
      for (offset, whole) in (answers[promptIndex] ?? []).enumerated() {
        guard let completion = whole.completion else {
          throw OpenAIAPIError(status: .internalServerError, message: "The model ended its answer without completing it.",
                               type: "server_error")
        }
        choices.append(.init(text: prefix + whole.text, index: promptIndex * count + offset,
                             logprobs: wire.logprobs == nil ? nil : completion.logProbabilities.map { CompletionLogProbabilities($0) },
                             finishReason: ChatCompletion.finishReason(completion.finishReason, calledTools: false)))
        completions.append(completion)
      }
      usages.append(Usage(answersTo: completions))
    }
    return try OpenAIResponses.json(Completion(id: Self.completionID(), created: ChatCompletionGeneration.now(),
                                               model: model.modelVersion, choices: choices, usage: ChatUsage(Self.total(usages))))
  }

  /// The choices' text as it comes (with `echo`, each choice's prompt first), each text's log
  /// probabilities in a chunk of their own right after it, each finish reason; then the usage with
  /// `stream_options.include_usage`, then `[DONE]`. Failures before the first events are HTTP
  /// errors, later ones an error event; a client that leaves cancels every choice.
  func stream(_ wire: CompletionRequest) async throws -> Response {
    let requests = try await checkedRequests(wire)
    var streams: [GenerationEvents] = [], firsts: [GenerationEvent?] = []
    do {
      for request in requests {
        let started = try await model.startedAnswers(to: request, count: wire.choiceCount)
        streams += started.streams
        firsts += started.firsts
      }
    } catch {
      for events in streams { events.cancel() }
      throw error
    }
    let echoed = wire.echo == true ? try requests.map { try $0.plainTextPrompt() } : nil
    let count = wire.choiceCount, listsLogProbabilities = wire.logprobs != nil
    let includeUsage = wire.streamOptions?.includeUsage == true
    let id = Self.completionID(), created = ChatCompletionGeneration.now(), modelName = model.modelVersion
    let logger = self.logger
    let merged = MergedGenerationEvents(streams, firsts: firsts), choiceCount = streams.count
    let body = ResponseBody { writer in
      func write(_ choices: [Completion.Choice], usage: ChatUsage? = nil) async throws {
        let chunk = Completion(id: id, created: created, model: modelName, choices: choices, usage: usage)
        try await writer.write(try ServerSentEvents.event(chunk, style: .openAI))
      }
      var completions = [[RawResponse]](repeating: [], count: requests.count)
      do {
        if let echoed {
          try await write((0..<choiceCount).map { Completion.Choice(text: echoed[$0 / count], index: $0) })
        }
        while let (index, event) = try await merged.next() {
          switch event {
          case .textDelta(let delta):
            try await write([.init(text: delta, index: index)])
          case .logProbabilities(let entries) where listsLogProbabilities:
            try await write([.init(text: "", index: index, logprobs: CompletionLogProbabilities(entries))])
          case .completed(let raw):
            completions[index / count].append(raw)
            try await write([.init(text: "", index: index, finishReason: ChatCompletion.finishReason(raw.finishReason, calledTools: false))])
          default:
            break
          }
        }
        if includeUsage {
          try await write([], usage: ChatUsage(Self.total(completions.map { Usage(answersTo: $0) })))
        }
        try await writer.write(ServerSentEvents.done)
      } catch {
        merged.cancel()
        await OpenAIAPIError.endStream(&writer, after: error, logger: logger)
      }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
  }

  /// The request of each prompt, once the model says it is ready for it; a prompt longer than the
  /// context is `context_length_exceeded` naming `prompt` (not chat's `messages`).
  private func checkedRequests(_ wire: CompletionRequest) async throws -> [GenerationRequest] {
    var checked: [GenerationRequest] = []
    do {
      for request in try wire.generationRequests() { checked.append(try await model.checked(request, logger: logger)) }
    } catch let error as GenerationError {
      guard case .exceededContextWindowSize = error else { throw error }
      throw OpenAIAPIError.invalidRequest(GoogleAPIError.from(generationError: error).message, param: "prompt",
                                          code: "context_length_exceeded")
    }
    return checked
  }

  /// Several prompts' usages added up.
  private static func total(_ usages: [Usage]) -> Usage {
    usages.reduce(into: .zero) { $0.add($1) }
  }

  static func completionID() -> String { "cmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
}
