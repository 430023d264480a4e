/// One event in a model's answer stream.
public enum GenerationEvent: Sendable {
  /// More text of the answer, in order. Deltas are whole Unicode scalars, never split UTF-8.
  case textDelta(String)
  /// The model wants these tools called before it answers; the turn ends with ``completed(_:)`` next.
  case toolCalls([Transcript.ToolCall])
  /// The answer is complete: which model answered, token usage, why it stopped.
  case completed(RawResponse)
}
