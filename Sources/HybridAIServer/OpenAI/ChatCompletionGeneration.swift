import Foundation
import HybridAI
import HybridAIHTTP
import HybridAIOpenAI
import HybridAIServing
import Hummingbird
import Logging

/// Answers one `chat/completions` request with a served model: the whole answer, or a stream of
/// chunks (`data: {…}` events, then `data: [DONE]`).
struct ChatCompletionGeneration: Sendable {
  let model: ServedModel
  let logger: Logger

  /// The answer in one `chat.completion`.
  func generate(_ wire: ChatCompletionRequest) async throws -> Response {
    let request = try await model.checked(try wire.generationRequest(), logger: logger)
    let whole = try await model.wholeAnswer(to: request)
    let (text, toolCalls, completion) = (whole.text, whole.toolCalls, whole.completion)
    guard let completion else {
      throw OpenAIAPIError(status: .internalServerError, message: "The model ended its answer without completing it.",
                           type: "server_error")
    }
    let answer = ChatCompletion(
      id: Self.completionID(), created: Self.now(), model: model.modelVersion,
      choices: [.init(index: 0, message: ChatCompletion.message(text: text, toolCalls: toolCalls),
                      finishReason: ChatCompletion.finishReason(completion.finishReason, calledTools: !toolCalls.isEmpty),
                      logprobs: completion.logProbabilities.map(ChatLogProbabilities.init))],
      usage: ChatUsage(completion.usage))
    return try OpenAIResponses.json(answer)
  }

  /// The answer as server-sent chunks: the role first, one chunk per text delta, the tool calls
  /// whole (one delta each), each text's `logprobs` when asked (a chunk after it), the finish reason, the
  /// usage when `stream_options.include_usage`,
  /// then `[DONE]`. Failures before the first event are HTTP errors; later ones an error event.
  /// When the client goes away, the write fails and generation is cancelled.
  func stream(_ wire: ChatCompletionRequest) async throws -> Response {
    let request = try await model.checked(try wire.generationRequest(), logger: logger)
    let events = GenerationEvents(model.model.generate(request))
    let first = try await events.next()
    let includeUsage = wire.streamOptions?.includeUsage == true
    let id = Self.completionID(), created = Self.now(), modelName = model.modelVersion
    let logger = self.logger
    let body = ResponseBody { writer in
      func chunk(_ delta: ChatCompletionChunk.Delta, finishReason: String? = nil,
                 logprobs: ChatLogProbabilities? = nil) throws -> ByteBuffer {
        try ServerSentEvents.event(ChatCompletionChunk(id: id, created: created, model: modelName,
                                                       choices: [.init(delta: delta, finishReason: finishReason, logprobs: logprobs)]),
                                   style: .openAI)
      }
      var event = first
      var callsSent = 0   // tool calls are numbered across the whole answer
      var logProbabilitiesSent = false
      do {
        try await writer.write(try chunk(.init(role: "assistant", content: "")))
        while let current = event {
          switch current {
          case .textDelta(let delta):
            try await writer.write(try chunk(.init(content: delta)))
          case .toolCalls(let calls):
            let deltas = calls.enumerated().map { offset, call in
              ChatCompletionChunk.ToolCallDelta(index: callsSent + offset, id: call.id, type: "function",
                                                function: .init(name: call.toolName, arguments: call.arguments.jsonString))
            }
            callsSent += calls.count
            try await writer.write(try chunk(.init(toolCalls: deltas)))
          case .logProbabilities(let entries):
            // Right after the text they belong to, in a chunk of their own.
            logProbabilitiesSent = true
            try await writer.write(try chunk(.init(), logprobs: ChatLogProbabilities(entries)))
          case .completed(let raw):
            // A model that gave its log probabilities only at the end: all of them with the finish reason.
            let unsent = logProbabilitiesSent ? nil : raw.logProbabilities.map(ChatLogProbabilities.init)
            try await writer.write(try chunk(.init(), finishReason: ChatCompletion.finishReason(raw.finishReason, calledTools: callsSent > 0),
                                             logprobs: unsent))
            if includeUsage {
              try await writer.write(try ServerSentEvents.event(ChatCompletionChunk(
                id: id, created: created, model: modelName, choices: [], usage: ChatUsage(raw.usage)), style: .openAI))
            }
          case .routed, .artifact:
            break   // served models answer themselves; Chat Completions has no place for files
          }
          event = try await events.next()
        }
        try await writer.write(ServerSentEvents.done)
      } catch {
        events.cancel()
        logger.info("stream ended early", metadata: ["error": "\(error)"])
        if !(error is CancellationError) {   // headers are gone: the error is the last event
          try? await writer.write(ServerSentEvents.event(OpenAIAPIError.from(error, maxRequestBytes: 0).envelope, style: .openAI))
        }
      }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
  }

  static func completionID() -> String { "chatcmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

  static func now() -> Int { Int(Date().timeIntervalSince1970) }
}
