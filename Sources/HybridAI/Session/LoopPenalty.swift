/// Keeps a model from repeating itself word for word: continuing a run of tokens that already
/// occurred earlier in the answer gets less likely the longer the run is (the "DRY" — don't repeat
/// yourself — sampler of llama.cpp and text-generation-webui).
///
/// ```swift
/// let options = GenerationOptions(sampling: .greedy, loopPenalty: .standard)
/// ```
///
/// Unlike ``GenerationOptions/repetitionPenalty``, which makes every token already used less
/// likely (numbered lists and punctuation suffer), this penalises only the token that would extend
/// a repeat longer than ``allowedLength``: a list stays a list, a loop is broken. Runs do not
/// reach across a ``sequenceBreakers`` text (a new line, a quote), so repeated line openings and
/// JSON keys are left alone. On-device models only; cloud APIs have no such setting.
public struct LoopPenalty: Sendable, Hashable, Codable {
  /// How strong the penalty is; `0` is off, `0.8` usual.
  public var multiplier: Double
  /// How fast it grows with each token the repeat runs longer.
  public var base: Double
  /// How long a repeat may be before it is penalised, in tokens.
  public var allowedLength: Int
  /// How many of the answer's latest tokens are searched for earlier occurrences.
  public var window: Int
  /// Texts that end a run: a repeat is not followed across them.
  public var sequenceBreakers: [String]

  public init(multiplier: Double, base: Double = 1.75, allowedLength: Int = 2, window: Int = 1024,
              sequenceBreakers: [String] = ["\n", ":", "\"", "*"]) {
    self.multiplier = multiplier
    self.base = base
    self.allowedLength = allowedLength
    self.window = window
    self.sequenceBreakers = sequenceBreakers
  }

  /// The usual setting (multiplier 0.8, base 1.75, repeats of up to 2 tokens allowed, breaking
  /// at new lines, colons, quotes and asterisks), as llama.cpp and text-generation-webui suggest.
  public static let standard = LoopPenalty(multiplier: 0.8)

  /// Whether it penalises anything.
  public var isActive: Bool { multiplier > 0 && window != 0 }

  /// Why these values cannot be used, or `nil` when they can.
  public var invalidity: String? {
    if !(multiplier >= 0 && multiplier.isFinite) { return "loopPenalty.multiplier must be 0 or more, got \(multiplier)" }
    if !(base >= 1 && base.isFinite) { return "loopPenalty.base must be 1 or more, got \(base)" }
    if allowedLength < 1 { return "loopPenalty.allowedLength must be positive, got \(allowedLength)" }
    if window < 0 { return "loopPenalty.window must be 0 or more, got \(window)" }
    return nil
  }
}
