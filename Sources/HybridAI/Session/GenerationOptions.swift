/// How a model should generate one answer.
///
/// ```swift
/// let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64)
/// let creative = GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: 42), temperature: 0.8)
/// ```
/// Fields left `nil` use the backend's defaults.
///
/// In a hybrid session each backend takes its own part: `.onDevice(…)` options apply to the
/// on-device model only, `.gemini(…)` (module HybridAIGemini) to the cloud model only, and
/// `.hybrid(gemini:onDevice:)` gives each its own. Plain options apply to every model.
public struct GenerationOptions: Sendable, Hashable, Codable {
  /// How the next token is chosen.
  public var sampling: SamplingMode?
  /// Higher is more varied; `0` behaves like greedy sampling.
  public var temperature: Double?
  /// The most tokens the answer may have.
  public var maximumResponseTokens: Int?
  /// Makes tokens that are already in the answer less likely, so a small model does not loop
  /// ("I am a robot. I am a robot. …"): each such token's score is divided by this (or multiplied,
  /// when negative). `1` or `nil` is off; `1.1`…`1.3` is usual. On-device models only (llama.cpp's
  /// repeat penalty, over the answer's last ``penaltyWindow`` tokens); cloud models have no such
  /// setting and ignore it. Works with greedy sampling too.
  public var repetitionPenalty: Double?
  /// Makes the model less likely to repeat a run of tokens it already wrote (breaks loops without
  /// harming lists); on-device models only. See ``LoopPenalty``.
  public var loopPenalty: LoopPenalty?
  /// Lowers each token's score by this times the number of times it already occurs in the answer
  /// (OpenAI's `frequency_penalty`, Gemini's `frequencyPenalty`); `-2…2`, `0` or `nil` is off.
  public var frequencyPenalty: Double?
  /// Lowers the score of every token that already occurs in the answer by this, once (OpenAI's
  /// `presence_penalty`, Gemini's `presencePenalty`); `-2…2`, `0` or `nil` is off.
  public var presencePenalty: Double?
  /// Text that ends the answer when generated; the stop sequence itself is not part of the answer.
  public var stopSequences: [String]
  /// Whether the model may, must or must not call the session's tools; `nil` means ``ToolChoice/automatic``.
  public var toolChoice: ToolChoice?
  /// Whether one answer may hold several tool calls: `false` allows one at most (OpenAI's
  /// `parallel_tool_calls`); `nil` is the model's default (on-device: up to four in HybridAI's own
  /// tool format, one in a model's native format).
  public var parallelToolCalls: Bool?
  /// The kinds of content the answer may hold, for a model that can answer with more than text
  /// (Gemini's `responseModalities`): `[.text, .image]` asks for text and pictures. `nil` means
  /// the model's default (text). A model whose ``ModelCapabilities/outputModalities`` lack one
  /// of them does not serve the request: a hybrid routes it to the other model.
  public var responseModalities: Set<Modality>?
  /// What a model that cannot read an attachment's kind does with the request; `nil` means
  /// ``UnreadableAttachmentPolicy/route``.
  public var unreadableAttachments: UnreadableAttachmentPolicy?
  /// Asks for each answer token's log probability: `0` for the chosen tokens only, `1…20` also for
  /// that many of the most likely tokens at each position; `nil` (the default) for none. They come
  /// in ``RawResponse/logProbabilities`` (and, streamed, ``GenerationEvent/logProbabilities(_:)``).
  /// On-device models, `hybrid serve`, OpenAI-compatible servers and Gemini give them; on-device, a
  /// value out of range is an ``GenerationError/unsupportedRequest(_:)``.
  public var logProbabilities: Int?
  /// Which kind of model the fields above are for; `nil` (the default) means every model.
  public var appliesTo: ModelSource?
  /// Options for one backend, by ``ModelSpecificOptions/optionsKey``; `nil` when there are none.
  private var modelSpecificOptions: [String: JSONValue]?

  public init(sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
              repetitionPenalty: Double? = nil, loopPenalty: LoopPenalty? = nil, frequencyPenalty: Double? = nil,
              presencePenalty: Double? = nil, stopSequences: [String] = [], toolChoice: ToolChoice? = nil,
              responseModalities: Set<Modality>? = nil, unreadableAttachments: UnreadableAttachmentPolicy? = nil) {
    self.sampling = sampling
    self.repetitionPenalty = repetitionPenalty
    self.loopPenalty = loopPenalty
    self.frequencyPenalty = frequencyPenalty
    self.presencePenalty = presencePenalty
    self.unreadableAttachments = unreadableAttachments
    self.responseModalities = responseModalities
    self.temperature = temperature
    self.maximumResponseTokens = maximumResponseTokens
    self.stopSequences = stopSequences
    self.toolChoice = toolChoice
  }

  /// How many of the answer's latest tokens the penalties look at (llama.cpp's `penalty_last_n`).
  public static let penaltyWindow = 64

  /// Whether any of the penalties (repetition, loop, frequency, presence) is set to something other than off.
  public var hasPenalties: Bool {
    (repetitionPenalty.map { $0 != 1 } ?? false) || (frequencyPenalty.map { $0 != 0 } ?? false)
      || (presencePenalty.map { $0 != 0 } ?? false) || (loopPenalty?.isActive ?? false)
  }

  /// The first option out of range, described for an error message, or `nil` when all are valid:
  /// `repetitionPenalty` must be positive, the frequency and presence penalties within `-2…2`,
  /// ``logProbabilities`` within `0…20`, the loop penalty as ``LoopPenalty/invalidity`` says.
  public var invalidOption: String? {
    if let value = repetitionPenalty, !(value > 0 && value.isFinite) { return "repetitionPenalty must be positive, got \(value)" }
    if let value = frequencyPenalty, !(-2...2).contains(value) { return "frequencyPenalty must be within -2…2, got \(value)" }
    if let value = presencePenalty, !(-2...2).contains(value) { return "presencePenalty must be within -2…2, got \(value)" }
    if let count = logProbabilities, !(0...TokenLogProbability.maximumAlternatives).contains(count) {
      return "logProbabilities must be within 0…\(TokenLogProbability.maximumAlternatives), got \(count)"
    }
    return loopPenalty?.invalidity
  }

  /// Options for the on-device model only; a cloud model uses its defaults.
  public static func onDevice(_ options: GenerationOptions) -> GenerationOptions {
    var scoped = options
    scoped.appliesTo = .onDevice
    return scoped
  }

  /// Whether the generic fields (sampling, temperature, …) are meant for a model of this kind.
  public func appliesGenericOptions(to source: ModelSource) -> Bool {
    appliesTo == nil || appliesTo == source
  }

  /// The generic options a model of kind `source` should use: these options, or the defaults when
  /// they are scoped to the other kind of model.
  public func genericOptions(for source: ModelSource) -> GenerationOptions {
    appliesGenericOptions(to: source) ? self : GenerationOptions()
  }

  /// One backend's own options (for example Gemini's `GenerationConfig`), or `nil`.
  public subscript<Options: ModelSpecificOptions>(_ type: Options.Type) -> Options? {
    get { try? modelSpecificOptions?[Options.optionsKey]?.decode(as: Options.self) }
    set {
      var all = modelSpecificOptions ?? [:]
      all[Options.optionsKey] = try? newValue.map { try JSONValue(encoding: $0) }
      modelSpecificOptions = all.isEmpty ? nil : all
    }
  }

  /// A strategy for picking the next token.
  public struct SamplingMode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The strategy, for backends.
    public enum Strategy: Sendable, Hashable, Codable {
      /// Always the most likely token: deterministic.
      case greedy
      /// Sample among the `k` most likely tokens.
      case topK(Int, seed: UInt64?)
      /// Sample among the smallest set of tokens whose probabilities add up to `threshold`.
      case nucleus(threshold: Double, seed: UInt64?)
    }

    /// The strategy, for backends.
    public let strategy: Strategy

    /// Always picks the most likely token. The same prompt gives the same answer.
    public static let greedy = SamplingMode(strategy: .greedy)

    /// Samples among the `top` most likely tokens; a `seed` makes it repeatable.
    public static func random(top: Int, seed: UInt64? = nil) -> SamplingMode {
      precondition(top > 0, "top must be positive")
      return SamplingMode(strategy: .topK(top, seed: seed))
    }

    /// Samples among the most likely tokens whose probabilities add up to `probabilityThreshold`
    /// (nucleus sampling); a `seed` makes it repeatable.
    public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
      precondition((0...1).contains(probabilityThreshold), "probabilityThreshold must be in 0...1")
      return SamplingMode(strategy: .nucleus(threshold: probabilityThreshold, seed: seed))
    }

    public var description: String {
      switch strategy {
      case .greedy: "greedy"
      case .topK(let k, let seed): "random(top: \(k)\(seed.map { ", seed: \($0)" } ?? ""))"
      case .nucleus(let p, let seed): "random(probabilityThreshold: \(p)\(seed.map { ", seed: \($0)" } ?? ""))"
      }
    }
  }
}

/// What a model that cannot read an attachment's kind (a text model given a photo) does with a
/// request (``GenerationOptions/unreadableAttachments``). Either way nothing is dropped silently.
public enum UnreadableAttachmentPolicy: String, Sendable, Hashable, Codable {
  /// It does not serve the request: a hybrid sends it to the other model and says why; a lone
  /// model throws ``GenerationError/unsupportedRequest(_:)`` naming the kind. The default.
  case route
  /// It serves the request, reading the attachment's reference (id, name, type, size) in its
  /// place: for a text model that hands the file to a tool ("cut me out of this photo" →
  /// `segment_person` reads the photo through ``ToolContext/conversationFile(named:)``).
  case reference
}

/// Options that only one backend understands, attached to ``GenerationOptions`` with its subscript.
public protocol ModelSpecificOptions: Sendable, Hashable, Codable {
  /// A stable name for this kind of options, e.g. `gemini`.
  static var optionsKey: String { get }
}
