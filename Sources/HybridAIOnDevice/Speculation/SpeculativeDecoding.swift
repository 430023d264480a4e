import Logging

/// Whether, and how far, the on-device model guesses its next tokens and checks several in one
/// llama.cpp pass (speculative decoding).
///
/// With ``ngram`` (the default) a generation drafts from its own tokens: when the last tokens it
/// chose appeared earlier in the prompt or the answer, the tokens that followed them there are
/// proposed as the next ones, and one pass over the weights checks the whole draft. Answers that
/// repeat their prompt — rewriting, quoting, editing code, filling a form from a text — then
/// decode several tokens per pass; answers that do not find nothing to draft and cost nothing.
///
/// With a ``draftModelPath`` a smaller model with the same vocabulary drafts instead: it reads the
/// conversation too and proposes the tokens it finds most likely, for answers that do not repeat
/// their prompt. It pays where a pass of the draft model costs much less than one of the model
/// (a GPU, or a draft a tenth of the size); the draft model is loaded once per process and
/// checked against the model's vocabulary (``OnDeviceModelError/invalidDraftModel(path:reason:)``).
///
/// A drafted token is kept only when the model's own choice at that place (greedy, sampled, or
/// under a grammar) is that token, so answers keep exactly the distribution they have without
/// speculation, and greedy answers are the same tokens.
public struct SpeculativeDecoding: Sendable, Hashable {
  /// The most tokens one draft may hold; 0 turns speculation off.
  public var maximumDraftTokens: Int
  /// The fewest tokens that must repeat an earlier place of the conversation for the tokens that
  /// followed it there to be drafted. A draft is at most as long as the repeat, and grows with
  /// the drafts taken, so a short coincidence costs little.
  public var shortestMatch: Int
  /// What checking one drafted token costs, as a share of decoding one token. A pass with a draft
  /// of `d` tokens costs about `1 + cost × d` steps and yields one token more for each drafted
  /// token kept, so a draft of which at most `cost × d` tokens are kept made decoding slower: it
  /// counts as failed, and drafting pauses. `nil` (the default): ``cpuDraftTokenCost`` when the
  /// model runs on the CPU, ``gpuDraftTokenCost`` with layers on a GPU.
  public var draftTokenCost: Double?
  /// A GGUF model with the same vocabulary that drafts instead of the conversation's n-grams;
  /// `nil` (the default): n-gram drafts.
  public var draftModelPath: String?
  /// With a draft model: a drafted token the draft model gives less than this probability ends
  /// the draft (the model would rarely choose it, and checking it costs part of a step); 0
  /// drafts as far as the draft length allows.
  public var minimumDraftProbability: Double

  /// A drafted token's cost on the CPU: checking one beside the chosen token took 4.4 ms where a
  /// step took 9 ms (SmolLM2-135M Q4_1, 2 cores: its 49,152-wide output row is computed for it too).
  public static let cpuDraftTokenCost = 0.5
  /// A drafted token's cost on a GPU, where a pass of a few dozen tokens takes about as long as one.
  public static let gpuDraftTokenCost = 0.05

  /// Speculation with drafts of at most `maximumDraftTokens` tokens where at least
  /// `shortestMatch` tokens repeat; `draftTokenCost` as ``draftTokenCost`` says; drafts from the
  /// model at `draftModelPath` when one is given, as long as it is at least
  /// `minimumDraftProbability` sure of each token.
  public init(maximumDraftTokens: Int = 48, shortestMatch: Int = 3, draftTokenCost: Double? = nil,
              draftModelPath: String? = nil, minimumDraftProbability: Double = 0.5) {
    self.maximumDraftTokens = max(0, maximumDraftTokens)
    self.draftModelPath = draftModelPath
    self.minimumDraftProbability = min(max(minimumDraftProbability, 0), 1)
    self.shortestMatch = max(1, shortestMatch)
    self.draftTokenCost = draftTokenCost.map { min(max($0, 0), 1) }
  }

  /// ``draftTokenCost``, or the default for where the model runs.
  func draftTokenCost(onGPU: Bool) -> Double {
    draftTokenCost ?? (onGPU ? Self.gpuDraftTokenCost : Self.cpuDraftTokenCost)
  }

  /// Drafts from the conversation's own n-grams (the default).
  public static let ngram = SpeculativeDecoding()
  /// One token per pass.
  public static let off = SpeculativeDecoding(maximumDraftTokens: 0)

  /// Whether drafts are made at all.
  public var isEnabled: Bool { maximumDraftTokens > 0 }
}

extension SpeculativeDecoding {
  /// These settings with drafts short enough that a token and its draft make one llama.cpp pass of
  /// fewer than ``BatchScheduler/tiledAttentionRows`` tokens of the sequence, which keeps each
  /// token's logits rounded as when it is decoded alone (so greedy answers do not change), and
  /// fit in a batch of `batchSize`.
  func fitting(batchSize: Int) -> SpeculativeDecoding {
    var fitted = self
    fitted.maximumDraftTokens = max(0, min(maximumDraftTokens, batchSize - 1, BatchScheduler.tiledAttentionRows - 2))
    return fitted
  }

  /// These settings, or ``off`` for weights whose memory cannot forget a rejected draft (said in
  /// the log).
  func supported(by weights: LlamaModelWeights, logger: Logger) -> SpeculativeDecoding {
    guard isEnabled, !weights.canForgetLastTokens else { return self }
    logger.info("speculative decoding is off: this model's memory (recurrent or hybrid) cannot drop rejected drafts",
                metadata: ["model": "\(weights.path)"])
    return .off
  }

  /// Whether drafts come from a draft model (``draftModelPath``).
  var usesDraftModel: Bool { isEnabled && draftModelPath != nil }
}
