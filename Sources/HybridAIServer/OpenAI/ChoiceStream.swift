import HybridAI
import HybridAIOpenAIWire

/// One choice of a streamed chat completion: turns its model's events into the chunks' choices.
struct ChoiceStream {
  let index: Int
  /// Tool calls are numbered across the whole answer.
  private var callsSent = 0
  private var logProbabilitiesSeen = false
  /// The text's bytes sent, and the bytes of the log-probability entries sent: an entry goes out
  /// once text holding its start has (entries of tokens that became a tool call never do).
  private var textBytes = 0
  private var listedBytes = 0
  private var pending: [TokenLogProbability] = []

  init(index: Int) { self.index = index }

  /// The chunk choice `event` adds to the stream: a text delta (with the log probabilities its text
  /// lets out), the tool calls whole (one delta each), a text's log probabilities (right after it,
  /// with an empty delta), or the finish reason; nothing for the rest (served models answer
  /// themselves; Chat Completions has no place for files).
  mutating func chunk(for event: GenerationEvent) -> ChatCompletionChunk.Choice? {
    switch event {
    case .textDelta(let delta):
      textBytes += delta.utf8.count
      return .init(index: index, delta: .init(content: delta), logprobs: releasedLogProbabilities())
    case .toolCalls(let calls):
      let deltas = calls.enumerated().map { offset, call in
        ChatCompletionChunk.ToolCallDelta(index: callsSent + offset, id: call.id, type: "function",
                                          function: .init(name: call.toolName, arguments: call.arguments.jsonString))
      }
      callsSent += calls.count
      return .init(index: index, delta: .init(toolCalls: deltas))
    case .logProbabilities(let entries):
      logProbabilitiesSeen = true
      pending += entries
      return releasedLogProbabilities().map { .init(index: index, delta: .init(), logprobs: $0) }
    case .completed(let raw):
      // A model that gave its log probabilities only at the end: all of them with the finish reason.
      if !logProbabilitiesSeen, let all = raw.logProbabilities { pending = all }
      // What is still held belongs to the text (all of it is sent now), unless the answer called
      // tools: then only the entries the text holds.
      var rest = callsSent > 0 ? releasedLogProbabilities() : pending.isEmpty ? nil : ChatLogProbabilities(take(pending.count))
      if rest == nil, !logProbabilitiesSeen, raw.logProbabilities != nil { rest = ChatLogProbabilities([]) }   // asked for, none
      return .init(index: index, delta: .init(), finishReason: ChatCompletion.finishReason(raw.finishReason, calledTools: callsSent > 0),
                   logprobs: rest)
    case .routed, .artifact:
      return nil
    }
  }

  /// The held entries whose tokens start within the text sent so far, or `nil` for none.
  private mutating func releasedLogProbabilities() -> ChatLogProbabilities? {
    let released = pending.startingWithin(textBytes - listedBytes)
    return released.isEmpty ? nil : ChatLogProbabilities(take(released.count))
  }

  /// Removes and returns the first `count` held entries.
  private mutating func take(_ count: Int) -> [TokenLogProbability] {
    let taken = Array(pending.prefix(count))
    pending.removeFirst(count)
    listedBytes += taken.reduce(0) { $0 + $1.bytes.count }
    return taken
  }
}
