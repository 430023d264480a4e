import HybridAI

/// What a generation produced: its text deltas, files, tool calls, then its completion or error.
public struct GenerationOutcome: Sendable {
  public var deltas: [String] = []
  public var toolCalls: [Transcript.ToolCall] = []
  /// Files the model made, in order.
  public var artifacts: [Artifact] = []
  public var raw: RawResponse?
  public var error: (any Error)?

  public init() {}

  /// The deltas joined.
  public var text: String { deltas.joined() }

  /// Runs `events` (a model's `generate(_:)`) to its end.
  public static func collect(_ events: AsyncThrowingStream<GenerationEvent, any Error>) async -> GenerationOutcome {
    var outcome = GenerationOutcome()
    do {
      for try await event in events {
        switch event {
        case .textDelta(let text): outcome.deltas.append(text)
        case .toolCalls(let calls): outcome.toolCalls += calls
        case .artifact(let artifact): outcome.artifacts.append(artifact)
        case .completed(let raw): outcome.raw = raw
        case .routed, .logProbabilities: break
        }
      }
    } catch {
      outcome.error = error
    }
    return outcome
  }
}
