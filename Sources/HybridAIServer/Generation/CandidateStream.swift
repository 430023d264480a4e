import HybridAI
import HybridAIGeminiWire

/// One candidate of a streamed Gemini answer: turns its model's events into chunks.
struct CandidateStream {
  let chunks: ResponseChunks
  /// The candidate's `index`.
  let index: Int
  /// Whether its last chunk carries the usage (a lone candidate); with several, one chunk after
  /// them all carries everyone's.
  let carriesUsage: Bool
  /// Sent with the finish reason, in the last chunk.
  private var toolCalls: [Transcript.ToolCall] = []
  /// The text's bytes sent so far (the log probabilities of tokens after them belong to tool calls).
  private var textBytes = 0

  init(chunks: ResponseChunks, index: Int, carriesUsage: Bool) {
    self.chunks = chunks
    self.index = index
    self.carriesUsage = carriesUsage
  }

  /// The chunk `event` adds to the stream: a text delta, a file as `inlineData`, or the last one
  /// with the function calls, the finish reason (and the log probabilities when asked); none for
  /// the rest (served models answer themselves; log probabilities go whole in the last chunk).
  mutating func chunk(for event: GenerationEvent) throws -> GenerateContentResponse? {
    var produced: GenerateContentResponse
    switch event {
    case .textDelta(let delta):
      produced = chunks.delta(delta)
      textBytes += delta.utf8.count
    case .artifact(let file):
      produced = try chunks.file(file)
    case .toolCalls(let calls):
      toolCalls += calls
      return nil
    case .completed(let raw):
      produced = try chunks.final(text: "", toolCalls: toolCalls, completion: raw, textBytes: textBytes)
      if !carriesUsage { produced.usageMetadata = nil }
    case .routed, .logProbabilities:
      return nil
    }
    for position in produced.candidates.indices { produced.candidates[position].index = index }
    return produced
  }
}
