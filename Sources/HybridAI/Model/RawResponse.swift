/// What a model reports about an answer besides its text.
public struct RawResponse: Sendable, Hashable, Codable {
  /// Which model answered, e.g. `SmolLM2-135M-Instruct.Q4_1` or the cloud's reported `gemini-2.5-flash-001`.
  public var modelVersion: String
  /// Whether the answer came from the on-device or the cloud model.
  public var source: ModelSource
  /// Set when a ``HybridModel`` answered with its secondary model: which model did not answer, and why.
  public var fallback: Fallback?
  /// Token counts for this turn.
  public var usage: Usage
  /// Why generation ended.
  public var finishReason: FinishReason
  /// Where the time went, when the backend measures it.
  public var timings: GenerationTimings?
  /// A cloud model's answer in its own wire form, and its metadata (see ``ProviderContent``).
  public var providerContent: ProviderContent?
  /// Each answer token's log probability, in order, when the request asked for them
  /// (``GenerationOptions/logProbabilities``) and the model gives them; `nil` otherwise. The
  /// tokens of a stop sequence, and the end of the answer, are not among them.
  public var logProbabilities: [TokenLogProbability]?

  public init(modelVersion: String, source: ModelSource, usage: Usage, finishReason: FinishReason,
              timings: GenerationTimings? = nil, providerContent: ProviderContent? = nil, fallback: Fallback? = nil) {
    self.modelVersion = modelVersion
    self.source = source
    self.usage = usage
    self.finishReason = finishReason
    self.timings = timings
    self.providerContent = providerContent
    self.fallback = fallback
  }
}

/// Token counts of one turn (or, summed, of a session: ``GenerativeModelSession/usage``).
public struct Usage: Sendable, Hashable, Codable {
  /// Tokens in the whole prompt (instructions, history and the new prompt).
  public var promptTokens: Int
  /// Prompt tokens that were not evaluated again because a cache already held them.
  public var cachedPromptTokens: Int
  /// Tokens generated: the answer and, for a thinking model, its reasoning.
  public var outputTokens: Int
  /// The part of ``outputTokens`` the model spent reasoning (Gemini's thoughts, OpenAI's reasoning tokens).
  public var reasoningTokens: Int
  /// Tokens of what the service's own tools added to the prompt (Gemini's search results, fetched
  /// pages, code output), besides ``promptTokens``.
  public var toolUsePromptTokens: Int
  /// Tokens an on-device model drafted and checked with speculative decoding
  /// (``acceptedDraftTokens`` of them became part of the answer; the rest cost a check each).
  public var draftTokens: Int
  /// Drafted tokens the model chose too: output tokens that did not cost a pass of their own.
  public var acceptedDraftTokens: Int
  /// The part of ``promptTokens`` that images take (the places of their embeddings).
  public var imagePromptTokens: Int
  /// The part of ``promptTokens`` that sounds take.
  public var audioPromptTokens: Int

  /// Prompt plus output tokens.
  public var totalTokens: Int { promptTokens + toolUsePromptTokens + outputTokens }
  /// Prompt tokens that had to be evaluated this turn.
  public var evaluatedPromptTokens: Int { promptTokens - cachedPromptTokens }

  /// Counts as given, each clamped to ``count(_:)``'s range (they may come from another system).
  public init(promptTokens: Int, cachedPromptTokens: Int = 0, outputTokens: Int, reasoningTokens: Int = 0,
              toolUsePromptTokens: Int = 0, draftTokens: Int = 0, acceptedDraftTokens: Int = 0,
              imagePromptTokens: Int = 0, audioPromptTokens: Int = 0) {
    self.promptTokens = Self.count(promptTokens)
    self.cachedPromptTokens = Self.count(cachedPromptTokens)
    self.outputTokens = Self.count(outputTokens)
    self.reasoningTokens = Self.count(reasoningTokens)
    self.toolUsePromptTokens = Self.count(toolUsePromptTokens)
    self.draftTokens = Self.count(draftTokens)
    self.acceptedDraftTokens = Self.count(acceptedDraftTokens)
    self.imagePromptTokens = Self.count(imagePromptTokens)
    self.audioPromptTokens = Self.count(audioPromptTokens)
  }

  /// The part of ``promptTokens`` that text takes (everything but images and sounds).
  public var textPromptTokens: Int { max(0, promptTokens - imagePromptTokens - audioPromptTokens) }

  /// A token count as a server reported it, made usable: 0…2³¹−1 (a negative or absurd count from
  /// a server then cannot overflow the sums made of it).
  public static func count(_ reported: Int?) -> Int {
    min(max(0, reported ?? 0), Int(Int32.max))
  }

  /// Nothing used.
  public static let zero = Usage(promptTokens: 0, outputTokens: 0)

  /// Adds another answer's counts.
  public mutating func add(_ other: Usage) {
    promptTokens += other.promptTokens
    cachedPromptTokens += other.cachedPromptTokens
    outputTokens += other.outputTokens
    reasoningTokens += other.reasoningTokens
    toolUsePromptTokens += other.toolUsePromptTokens
    draftTokens += other.draftTokens
    acceptedDraftTokens += other.acceptedDraftTokens
    imagePromptTokens += other.imagePromptTokens
    audioPromptTokens += other.audioPromptTokens
  }

  private enum CodingKeys: String, CodingKey {
    case promptTokens, cachedPromptTokens, outputTokens, reasoningTokens, toolUsePromptTokens, draftTokens, acceptedDraftTokens
    case imagePromptTokens, audioPromptTokens
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(promptTokens, forKey: .promptTokens)
    try container.encode(cachedPromptTokens, forKey: .cachedPromptTokens)
    try container.encode(outputTokens, forKey: .outputTokens)
    try container.encode(reasoningTokens, forKey: .reasoningTokens)
    try container.encode(toolUsePromptTokens, forKey: .toolUsePromptTokens)
    try container.encode(draftTokens, forKey: .draftTokens)
    try container.encode(acceptedDraftTokens, forKey: .acceptedDraftTokens)
    // Only when there are any: text-only counts read as before.
    if imagePromptTokens > 0 { try container.encode(imagePromptTokens, forKey: .imagePromptTokens) }
    if audioPromptTokens > 0 { try container.encode(audioPromptTokens, forKey: .audioPromptTokens) }
  }

  /// Reads counts written before ``reasoningTokens``, ``toolUsePromptTokens``, the draft and the
  /// media counts existed as 0.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(promptTokens: try container.decode(Int.self, forKey: .promptTokens),
              cachedPromptTokens: try container.decodeIfPresent(Int.self, forKey: .cachedPromptTokens) ?? 0,
              outputTokens: try container.decode(Int.self, forKey: .outputTokens),
              reasoningTokens: try container.decodeIfPresent(Int.self, forKey: .reasoningTokens) ?? 0,
              toolUsePromptTokens: try container.decodeIfPresent(Int.self, forKey: .toolUsePromptTokens) ?? 0,
              draftTokens: try container.decodeIfPresent(Int.self, forKey: .draftTokens) ?? 0,
              acceptedDraftTokens: try container.decodeIfPresent(Int.self, forKey: .acceptedDraftTokens) ?? 0,
              imagePromptTokens: try container.decodeIfPresent(Int.self, forKey: .imagePromptTokens) ?? 0,
              audioPromptTokens: try container.decodeIfPresent(Int.self, forKey: .audioPromptTokens) ?? 0)
  }
}

/// Why a model stopped generating.
public enum FinishReason: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The model ended its turn, or a stop sequence was met.
  case stop
  /// `maximumResponseTokens` was reached.
  case maxTokens
  /// The context window filled up before the model finished.
  case contextWindowFull
  /// A backend-specific reason (e.g. a cloud model's `SAFETY`).
  case other(String)

  public var description: String {
    switch self {
    case .stop: "stop"
    case .maxTokens: "maxTokens"
    case .contextWindowFull: "contextWindowFull"
    case .other(let value): value
    }
  }

  public init(from decoder: any Decoder) throws {
    let value = try decoder.singleValueContainer().decode(String.self)
    switch value {
    case "stop": self = .stop
    case "maxTokens": self = .maxTokens
    case "contextWindowFull": self = .contextWindowFull
    default: self = .other(value)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// Where the time of one generation went.
public struct GenerationTimings: Sendable, Hashable, Codable {
  /// Time spent evaluating the prompt tokens that were not cached.
  public var promptEvaluation: Duration
  /// Time from the start of the request to the first generated token.
  public var timeToFirstToken: Duration?
  /// Time spent generating the answer after the first token.
  public var generation: Duration
  /// Prompt tokens evaluated (not cached).
  public var evaluatedPromptTokens: Int
  /// Output tokens generated.
  public var generatedTokens: Int

  public init(promptEvaluation: Duration, timeToFirstToken: Duration?, generation: Duration,
              evaluatedPromptTokens: Int, generatedTokens: Int) {
    self.promptEvaluation = promptEvaluation
    self.timeToFirstToken = timeToFirstToken
    self.generation = generation
    self.evaluatedPromptTokens = evaluatedPromptTokens
    self.generatedTokens = generatedTokens
  }

  /// Prompt tokens evaluated per second.
  public var promptTokensPerSecond: Double? { Self.rate(evaluatedPromptTokens, promptEvaluation) }
  /// Output tokens per second, counted after the first token.
  public var generationTokensPerSecond: Double? { Self.rate(generatedTokens - 1, generation) }

  private static func rate(_ count: Int, _ duration: Duration) -> Double? {
    let seconds = duration.seconds
    guard count > 0, seconds > 0 else { return nil }
    return Double(count) / seconds
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  public var seconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
