import CLlama
import HybridAI

/// One generation handed to a ``BatchScheduler``: a tokenized prompt, how to answer it, and
/// where the answer goes.
struct BatchRequest: Sendable {
  /// The prompt, chat template applied, with the places of its images and sounds.
  let prompt: MultimodalPrompt
  /// Sampling, limits and stop sequences (already scoped to the on-device model).
  let options: GenerationOptions
  /// The grammar for the answer (response schema, tools), or `nil` for free text.
  let guidance: DecodingGuidance?
  /// Reported as ``RawResponse/modelVersion``.
  let modelVersion: String
  /// When the caller asked, for ``GenerationTimings/timeToFirstToken``.
  let requestStarted: ContinuousClock.Instant
  /// Set when the consumer goes away; the scheduler drops the request at its next step.
  let cancellation: CancellationFlag
  /// Receives the text deltas and the final ``GenerationEvent/completed(_:)`` event, or the error.
  let continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation
  /// The draft model's weights, checked against the model's, when speculation drafts with one.
  var draftWeights: LlamaModelWeights? = nil

  /// The prompt's tokens (a medium's places hold its placeholders).
  var promptTokens: [llama_token] { prompt.tokens }
}
