import HybridAI

/// How a Gemini model generates (`generationConfig` of a ``GenerateContentRequest``).
///
/// Every field is optional; unset fields use the model's defaults and are left out of the JSON.
///
/// ```swift
/// let config = GenerationConfig(temperature: 0.8, topP: 0.9,
///                               thinkingConfig: ThinkingConfig(thinkingLevel: .high))
/// let response = try await session.respond(to: "Why is the sky blue?", options: .gemini(config))
/// ```
public struct GenerationConfig: Sendable, Hashable, Codable {
  /// Randomness, `0.0…2.0`.
  public var temperature: Double?
  /// Nucleus sampling: the cumulative probability of the tokens considered.
  public var topP: Double?
  /// Sample among the `topK` most likely tokens.
  public var topK: Int?
  /// How many candidates to generate.
  public var candidateCount: Int?
  /// The most tokens an answer may have.
  public var maxOutputTokens: Int?
  /// Penalises tokens that already appeared, once each.
  public var presencePenalty: Double?
  /// Penalises tokens by how often they already appeared.
  public var frequencyPenalty: Double?
  /// Up to five sequences that end the answer when generated.
  public var stopSequences: [String]?
  /// A seed for repeatable sampling.
  public var seed: Int?
  /// The answer's MIME type: `text/plain` (default), `application/json`, `text/x.enum`.
  public var responseMimeType: String?
  /// The answer's schema in the API's OpenAPI subset (with `responseMimeType` `application/json`).
  public var responseSchema: JSONValue?
  /// The answer's schema as JSON Schema (alternative to ``responseSchema``).
  public var responseJsonSchema: JSONValue?
  /// Which modalities the answer may contain: `TEXT`, `IMAGE`, `AUDIO`.
  public var responseModalities: [String]?
  /// Whether to return the log probabilities of the chosen tokens.
  public var responseLogprobs: Bool?
  /// How many top alternatives' log probabilities to return per token.
  public var logprobs: Int?
  /// The resolution to process media at (`MEDIA_RESOLUTION_LOW`, …).
  public var mediaResolution: String?
  /// Speech output settings, kept as data.
  public var speechConfig: JSONValue?
  /// Image output settings, kept as data.
  public var imageConfig: JSONValue?
  /// Thinking settings.
  public var thinkingConfig: ThinkingConfig?

  /// A configuration; every field left `nil` uses the model's default.
  public init(temperature: Double? = nil, topP: Double? = nil, topK: Int? = nil, candidateCount: Int? = nil,
              maxOutputTokens: Int? = nil, presencePenalty: Double? = nil, frequencyPenalty: Double? = nil,
              stopSequences: [String]? = nil, seed: Int? = nil, responseMimeType: String? = nil,
              responseSchema: JSONValue? = nil, responseJsonSchema: JSONValue? = nil,
              responseModalities: [String]? = nil, responseLogprobs: Bool? = nil, logprobs: Int? = nil,
              mediaResolution: String? = nil, speechConfig: JSONValue? = nil, imageConfig: JSONValue? = nil,
              thinkingConfig: ThinkingConfig? = nil) {
    self.temperature = temperature
    self.topP = topP
    self.topK = topK
    self.candidateCount = candidateCount
    self.maxOutputTokens = maxOutputTokens
    self.presencePenalty = presencePenalty
    self.frequencyPenalty = frequencyPenalty
    self.stopSequences = stopSequences
    self.seed = seed
    self.responseMimeType = responseMimeType
    self.responseSchema = responseSchema
    self.responseJsonSchema = responseJsonSchema
    self.responseModalities = responseModalities
    self.responseLogprobs = responseLogprobs
    self.logprobs = logprobs
    self.mediaResolution = mediaResolution
    self.speechConfig = speechConfig
    self.imageConfig = imageConfig
    self.thinkingConfig = thinkingConfig
  }

  private enum CodingKeys: String, CodingKey {
    case temperature, topP, topK, candidateCount, maxOutputTokens, presencePenalty, frequencyPenalty, stopSequences
    case seed, responseMimeType, responseSchema, responseJsonSchema, responseModalities, responseLogprobs, logprobs
    case mediaResolution, speechConfig, imageConfig, thinkingConfig
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    self.init(
      temperature: try c.wire(Double.self, "temperature"),
      topP: try c.wire(Double.self, "topP"),
      topK: try c.wire(Int.self, "topK"),
      candidateCount: try c.wire(Int.self, "candidateCount"),
      maxOutputTokens: try c.wire(Int.self, "maxOutputTokens"),
      presencePenalty: try c.wire(Double.self, "presencePenalty"),
      frequencyPenalty: try c.wire(Double.self, "frequencyPenalty"),
      stopSequences: try c.wire([String].self, "stopSequences"),
      seed: try c.wire(Int.self, "seed"),
      responseMimeType: try c.wire(String.self, "responseMimeType"),
      responseSchema: try c.wire(JSONValue.self, "responseSchema"),
      responseJsonSchema: try c.wire(JSONValue.self, "responseJsonSchema")
        ?? c.decodeIfPresent(JSONValue.self, forKey: AnyCodingKey("_responseJsonSchema")),
      responseModalities: try c.wire([String].self, "responseModalities"),
      responseLogprobs: try c.wire(Bool.self, "responseLogprobs"),
      logprobs: try c.wire(Int.self, "logprobs"),
      mediaResolution: try c.wire(String.self, "mediaResolution"),
      speechConfig: try c.wire(JSONValue.self, "speechConfig"),
      imageConfig: try c.wire(JSONValue.self, "imageConfig"),
      thinkingConfig: try c.wire(ThinkingConfig.self, "thinkingConfig"))
  }
}
