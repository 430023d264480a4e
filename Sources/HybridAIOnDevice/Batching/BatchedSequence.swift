import CLlama
import HybridAI

/// A request being served in one llama.cpp sequence of a ``BatchScheduler``'s context: first its
/// prompt is evaluated (in chunks, between the other sequences' decode passes), then it decodes
/// one token per step, together with the others, until it finishes.
///
/// Owned and mutated only by the scheduler (on the llama thread).
final class BatchedSequence {
  /// The llama.cpp sequence id, which also names its KV buffer in the shared context.
  let id: llama_seq_id
  let request: BatchRequest
  let selector: TokenSelector
  var text: GeneratedTextEmitter
  var output: GuidedOutput
  /// The answer tokens' log probabilities, when the request asks for them (always sampled on the CPU).
  var logProbabilities: TokenLogProbabilityRecorder?
  /// `maximumResponseTokens`, or no limit.
  let limit: Int
  /// Whether llama.cpp picks its tokens in the graph (greedy, no grammar; see
  /// ``BatchScheduler/Settings/backendSampling``) instead of ``selector`` on the CPU.
  var usesBackendSampling = false

  /// Tokens of this sequence in the KV cache (prompt and evaluated answer tokens); the position
  /// of the next token.
  var position = 0
  /// The sampled token to evaluate in the next step, once the prompt is done.
  var nextToken: llama_token?
  /// A chosen token whose text is streamed during the next step's decode (throughput scheduling).
  var tokenAwaitingText: llama_token?
  /// Answer tokens evaluated into the KV cache (after the prompt), in order; kept only when the
  /// scheduler reuses prompt prefixes (the one reader, at release).
  var evaluatedAnswer: [llama_token] = []
  /// Prompt tokens found in the sequence's cache from an earlier request, or copied from another
  /// sequence (not evaluated again).
  var reusedPromptTokens = 0
  /// Another sequence of the batch whose prompt starts as this one's does and is being evaluated
  /// there now: this prompt waits until `source` holds `length` tokens and copies them instead of
  /// evaluating them too (``BatchScheduler``'s shared prompt starts).
  var awaitedPrefix: (source: BatchedSequence, length: Int)?
  /// Answer tokens generated so far.
  var generated = 0
  /// Speculative decoding's drafts for this sequence; `nil` when off.
  var speculation: SequenceSpeculation?

  let admitted: ContinuousClock.Instant
  var promptEvaluated: ContinuousClock.Instant?
  var firstToken: ContinuousClock.Instant?

  init(id: llama_seq_id, request: BatchRequest, weights: LlamaModelWeights,
       speculation: SpeculativeDecoding = .off, draftModel: DraftModelContext? = nil) throws(OnDeviceModelError) {
    self.id = id
    self.request = request
    selector = try TokenSelector(options: request.options, guidance: request.guidance, weights: weights)
    text = GeneratedTextEmitter(stopSequences: request.options.stopSequences)
    output = GuidedOutput(guidance: request.guidance)
    logProbabilities = TokenLogProbabilityRecorder(options: request.options)
    limit = request.options.maximumResponseTokens ?? Int.max
    self.speculation = SequenceSpeculation(speculation, prompt: request.promptTokens, onGPU: weights.placement.usesGPU,
                                           draftModel: draftModel, sequence: id)
    admitted = .now
  }

  /// The tokens whose keys and values the sequence holds, in order.
  var cachedTokens: [llama_token] { Array(request.promptTokens.prefix(min(position, request.promptTokens.count))) + evaluatedAnswer }

  /// Whether prompt tokens are still to be evaluated.
  var isEvaluatingPrompt: Bool { position < request.promptTokens.count }

  /// Whether the next prompt tokens can be evaluated in this step (some are left, and no other
  /// sequence is evaluating the start this one will copy).
  var evaluatesPromptNow: Bool { awaitedPrefix == nil && isEvaluatingPrompt }

  /// The image or sound whose places start where the prompt's evaluation stands, if any.
  var nextMedium: MultimodalPrompt.MediaSpan? {
    isEvaluatingPrompt ? request.prompt.media.first { $0.start == position } : nil
  }

  /// `end`, or the start of the first medium after the evaluation's position and before `end`
  /// (text is evaluated in the batch up to there, the medium through the projector).
  func textEnd(before end: Int) -> Int {
    request.prompt.media.first { $0.start >= position && $0.start < end }?.start ?? end
  }
}
