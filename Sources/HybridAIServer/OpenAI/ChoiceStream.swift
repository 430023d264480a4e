import HybridAI
import HybridAIOpenAI

/// One choice of a streamed chat completion: turns its model's events into the chunks' choices.
struct ChoiceStream {
  let index: Int
  /// Tool calls are numbered across the whole answer.
  private var callsSent = 0
  private var logProbabilitiesSent = false

  init(index: Int) { self.index = index }

  /// The chunk choice `event` adds to the stream: a text delta, the tool calls whole (one delta each), a
  /// text's log probabilities (right after it, with an empty delta), or the finish reason; nothing
  /// for the rest (served models answer themselves; Chat Completions has no place for files).
  mutating func chunk(for event: GenerationEvent) -> ChatCompletionChunk.Choice? {
    switch event {
    case .textDelta(let delta):
      return .init(index: index, delta: .init(content: delta))
    case .toolCalls(let calls):
      let deltas = calls.enumerated().map { offset, call in
        ChatCompletionChunk.ToolCallDelta(index: callsSent + offset, id: call.id, type: "function",
                                          function: .init(name: call.toolName, arguments: call.arguments.jsonString))
      }
      callsSent += calls.count
      return .init(index: index, delta: .init(toolCalls: deltas))
    case .logProbabilities(let entries):
      logProbabilitiesSent = true
      return .init(index: index, delta: .init(), logprobs: ChatLogProbabilities(entries))
    case .completed(let raw):
      // A model that gave its log probabilities only at the end: all of them with the finish reason.
      let unsent = logProbabilitiesSent ? nil : raw.logProbabilities.map(ChatLogProbabilities.init)
      return .init(index: index, delta: .init(), finishReason: ChatCompletion.finishReason(raw.finishReason, calledTools: callsSent > 0),
                   logprobs: unsent)
    case .routed, .artifact:
      return nil
    }
  }
}
