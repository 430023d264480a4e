import HybridAI

// Conversions between Gemini's response fields and HybridAI's usage and finish reasons, both ways.

extension Usage {
  /// HybridAI's usage for Gemini's token counts.
  ///
  /// `outputTokens` counts the answer's tokens *and* the thinking tokens (`candidatesTokenCount +
  /// thoughtsTokenCount`): both were generated (and are billed as output); `reasoningTokens` is
  /// `thoughtsTokenCount`; `promptTokens` is `promptTokenCount`, `toolUsePromptTokens`
  /// `toolUsePromptTokenCount` and `cachedPromptTokens` `cachedContentTokenCount`; the image and
  /// audio parts of the prompt come from `promptTokensDetails`.
  public init(gemini usage: UsageMetadata?) {
    func prompt(_ modality: String) -> Int {
      (usage?.promptTokensDetails ?? []).filter { $0.modality == modality }.reduce(0) { $0 + Usage.count($1.tokenCount) }
    }
    self.init(promptTokens: usage?.promptTokenCount ?? 0, cachedPromptTokens: usage?.cachedContentTokenCount ?? 0,
              outputTokens: Usage.count(usage?.candidatesTokenCount) + Usage.count(usage?.thoughtsTokenCount),
              reasoningTokens: usage?.thoughtsTokenCount ?? 0, toolUsePromptTokens: usage?.toolUsePromptTokenCount ?? 0,
              imagePromptTokens: prompt("IMAGE"), audioPromptTokens: prompt("AUDIO"))
  }
}

extension UsageMetadata {
  /// Gemini's token counts for HybridAI's usage (what a Gemini-compatible server reports); with
  /// images or sounds in the prompt, `promptTokensDetails` by modality.
  public init(_ usage: Usage) {
    var details: [Gemini.ModalityTokenCount]?
    if usage.imagePromptTokens > 0 || usage.audioPromptTokens > 0 {
      details = [("TEXT", usage.textPromptTokens), ("IMAGE", usage.imagePromptTokens), ("AUDIO", usage.audioPromptTokens)]
        .filter { $0.1 > 0 }.map { Gemini.ModalityTokenCount(modality: $0.0, tokenCount: $0.1) }
    }
    self.init(promptTokenCount: usage.promptTokens,
              cachedContentTokenCount: usage.cachedPromptTokens > 0 ? usage.cachedPromptTokens : nil,
              candidatesTokenCount: usage.outputTokens - usage.reasoningTokens,
              toolUsePromptTokenCount: usage.toolUsePromptTokens > 0 ? usage.toolUsePromptTokens : nil,
              thoughtsTokenCount: usage.reasoningTokens > 0 ? usage.reasoningTokens : nil,
              totalTokenCount: usage.totalTokens, promptTokensDetails: details)
  }
}

extension FinishReason {
  /// HybridAI's finish reason for Gemini's: `STOP` → ``HybridAI/FinishReason/stop``,
  /// `MAX_TOKENS` → ``HybridAI/FinishReason/maxTokens``, anything else → `.other(raw value)`;
  /// no reason → ``HybridAI/FinishReason/stop``.
  public init(gemini reason: Gemini.FinishReason?) {
    switch reason {
    case nil, .stop?: self = .stop
    case .maxTokens?: self = .maxTokens
    case let other?: self = .other(other.rawValue)
    }
  }
}

extension Gemini.FinishReason {
  /// Gemini's finish reason for HybridAI's (what a Gemini-compatible server reports): `.stop` →
  /// `STOP`, `.maxTokens` and `.contextWindowFull` → `MAX_TOKENS`, `.other(raw)` → `raw`.
  public init(_ reason: FinishReason) {
    switch reason {
    case .stop: self = .stop
    case .maxTokens, .contextWindowFull: self = .maxTokens
    case .other(let raw): self.init(rawValue: raw)
    }
  }
}

extension GenerateContentResponse {
  /// The response's metadata that HybridAI keeps as data in
  /// ``HybridAI/ProviderContent/metadata``: `responseId`, `modelVersion`, `createTime`,
  /// `promptFeedback`, `usageMetadata`, and the first candidate's `finishReason`,
  /// `finishMessage`, `safetyRatings`, `citationMetadata`, `groundingMetadata`,
  /// `urlContextMetadata`, `avgLogprobs`, `logprobsResult` — whichever are present.
  public var providerMetadata: JSONValue {
    var metadata: [String: JSONValue] = [:]
    if let candidate = candidates.first {
      var bare = candidate
      bare.content = nil
      if case .object(let fields)? = try? JSONValue(encoding: bare) { metadata = fields }
      metadata["index"] = nil
      metadata["tokenCount"] = nil
    }
    var top = self
    top.candidates = []
    if case .object(let fields)? = try? JSONValue(encoding: top) {
      metadata.merge(fields) { _, new in new }
    }
    return .object(metadata)
  }
}
