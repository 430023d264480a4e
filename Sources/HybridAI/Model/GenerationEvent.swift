/// One event in a model's answer stream.
public enum GenerationEvent: Sendable {
  /// A routing model (such as ``HybridModel``) has chosen the model that answers: its
  /// ``LanguageModel/modelIdentifier``, and the ``Fallback`` when it is not the preferred one.
  /// Comes before that model's first chunk; a later `routed` replaces an earlier one (a cloud model
  /// that turned out to be offline before answering). Not an answer chunk: streaming may still
  /// fall back after it.
  case routed(to: String, fallback: Fallback?)
  /// More text of the answer, in order. Deltas are whole Unicode scalars, never split UTF-8.
  case textDelta(String)
  /// The model wants these tools called before it answers; the turn ends with ``completed(_:)`` next.
  case toolCalls([Transcript.ToolCall])
  /// A file the model made as part of its answer (an image or a sound a cloud model returned
  /// inline), in the order it came among the text deltas. The session stores it in its
  /// ``ArtifactStore`` and records a reference on the response entry; the bytes never go back
  /// to a model.
  case artifact(Artifact)
  /// Log probabilities of answer tokens whose text came in the deltas before, in order (asked for
  /// with ``GenerationOptions/logProbabilities``). The ``completed(_:)`` event's
  /// ``RawResponse/logProbabilities`` holds them all again; a model may give them only there.
  case logProbabilities([TokenLogProbability])
  /// The answer is complete: which model answered, token usage, why it stopped.
  case completed(RawResponse)
}
