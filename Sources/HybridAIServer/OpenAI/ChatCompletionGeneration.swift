import Foundation
import HybridAI
import HybridAIHTTP
import HybridAIOpenAIWire
import HybridAIServing
import Hummingbird
import Logging

/// Answers one `chat/completions` request with a served model: the whole answer, or a stream of
/// chunks (`data: {…}` events, then `data: [DONE]`).
struct ChatCompletionGeneration: Sendable {
  let model: ServedModel
  let logger: Logger

  /// The answer in one `chat.completion`: `n` choices, generated side by side (each its own
  /// sequence of the batch); the usage counts the prompt once and every choice's tokens.
  func generate(_ wire: ChatCompletionRequest) async throws -> Response {
    let media = RequestMedia.store(holdingMedia: wire.holdsMedia, for: model)
    let request = try await model.checked(try wire.generationRequest(media: media?.store), logger: logger)
    let answers = try await model.wholeAnswers(to: request, count: wire.choiceCount)
    var choices: [ChatCompletion.Choice] = [], completions: [RawResponse] = []
    for (index, whole) in answers.enumerated() {
      guard let completion = whole.completion else {
        throw OpenAIAPIError(status: .internalServerError, message: "The model ended its answer without completing it.",
                             type: "server_error")
      }
      choices.append(.init(index: index, message: ChatCompletion.message(text: whole.text, toolCalls: whole.toolCalls),
                           finishReason: ChatCompletion.finishReason(completion.finishReason, calledTools: !whole.toolCalls.isEmpty),
                           logprobs: completion.logProbabilities.map { all in
                             // The text's tokens only: a tool call's are not listed (as OpenAI's).
                             ChatLogProbabilities(whole.toolCalls.isEmpty ? all : all.startingWithin(whole.text.utf8.count))
                           }))
      completions.append(completion)
    }
    let answer = ChatCompletion(id: Self.completionID(), created: Self.now(), model: model.modelVersion, choices: choices,
                                usage: ChatUsage(Usage(answersTo: completions)))
    return try OpenAIResponses.json(answer)
  }

  /// The answer as server-sent chunks: for each choice the role first, one chunk per text delta,
  /// the tool calls whole (one delta each), each text's `logprobs` when asked (a chunk after it),
  /// its finish reason; with `n` > 1 the choices' chunks interleave as they come, each with its
  /// `index`. Then the usage when `stream_options.include_usage`, then `[DONE]`. Failures before
  /// the first events are HTTP errors; later ones an error event. When the client goes away, the
  /// write fails and generation is cancelled.
  func stream(_ wire: ChatCompletionRequest) async throws -> Response {
    let media = RequestMedia.store(holdingMedia: wire.holdsMedia, for: model)
    let request = try await model.checked(try wire.generationRequest(media: media?.store), logger: logger)
    let (choices, firsts) = try await model.startedAnswers(to: request, count: wire.choiceCount)
    let includeUsage = wire.streamOptions?.includeUsage == true
    let id = Self.completionID(), created = Self.now(), modelName = model.modelVersion
    let logger = self.logger
    let body = ResponseBody { writer in
      var states = (0..<choices.count).map { ChoiceStream(index: $0) }
      var completions: [RawResponse] = []
      func write(_ choice: ChatCompletionChunk.Choice?) async throws {
        guard let choice else { return }
        try await writer.write(try ServerSentEvents.event(ChatCompletionChunk(id: id, created: created, model: modelName,
                                                                              choices: [choice]), style: .openAI))
      }
      let merged = choices.count == 1 ? nil : MergedGenerationEvents(choices, firsts: firsts)
      do {
        for index in states.indices { try await write(.init(index: index, delta: .init(role: "assistant", content: ""))) }
        if let merged {
          while let (index, event) = try await merged.next() {
            if case .completed(let raw) = event { completions.append(raw) }
            try await write(states[index].chunk(for: event))
          }
        } else {
          var event = firsts[0]
          while let current = event {
            if case .completed(let raw) = current { completions.append(raw) }
            try await write(states[0].chunk(for: current))
            event = try await choices[0].next()
          }
        }
        if includeUsage, !completions.isEmpty {
          try await writer.write(try ServerSentEvents.event(ChatCompletionChunk(
            id: id, created: created, model: modelName, choices: [], usage: ChatUsage(Usage(answersTo: completions))), style: .openAI))
        }
        try await writer.write(ServerSentEvents.done)
      } catch {
        if let merged { merged.cancel() } else { choices[0].cancel() }
        await OpenAIAPIError.endStream(&writer, after: error, logger: logger)
      }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
  }

  static func completionID() -> String { "chatcmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

  static func now() -> Int { Int(Date().timeIntervalSince1970) }
}
