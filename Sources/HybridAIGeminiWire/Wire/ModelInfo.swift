extension Gemini {
  /// A model as `GET models` and `GET models/{model}` describe it.
  public struct ModelInfo: Sendable, Hashable, Codable {
    /// The resource name, `models/{model}`.
    public var name: String
    /// The base model's identifier, e.g. `gemini-2.5-flash`.
    public var baseModelId: String?
    /// The version, e.g. `001`.
    public var version: String?
    /// A human-readable name.
    public var displayName: String?
    /// A short description.
    public var description: String?
    /// The most prompt tokens the model takes.
    public var inputTokenLimit: Int?
    /// The most tokens the model generates in one answer.
    public var outputTokenLimit: Int?
    /// The API methods the model serves: `generateContent`, `countTokens`, …
    public var supportedGenerationMethods: [String]?
    /// Whether the model thinks.
    public var thinking: Bool?
    /// The default temperature.
    public var temperature: Double?
    /// The highest temperature allowed.
    public var maxTemperature: Double?
    /// The default `topP`.
    public var topP: Double?
    /// The default `topK`.
    public var topK: Int?
    /// What the model reads (`TEXT`, `IMAGE`, `AUDIO`, `VIDEO`, `DOCUMENT`): a HybridAI extension,
    /// sent by `hybrid serve` (Google's models leave it out).
    public var inputModalities: [String]?
    /// What the model can answer with (`TEXT`, `IMAGE`, `AUDIO`): a HybridAI extension, sent by
    /// `hybrid serve`.
    public var outputModalities: [String]?

    /// A model description from its fields.
    public init(name: String, baseModelId: String? = nil, version: String? = nil, displayName: String? = nil,
                description: String? = nil, inputTokenLimit: Int? = nil, outputTokenLimit: Int? = nil,
                supportedGenerationMethods: [String]? = nil, thinking: Bool? = nil, temperature: Double? = nil,
                maxTemperature: Double? = nil, topP: Double? = nil, topK: Int? = nil,
                inputModalities: [String]? = nil, outputModalities: [String]? = nil) {
      self.inputModalities = inputModalities
      self.outputModalities = outputModalities
      self.name = name
      self.baseModelId = baseModelId
      self.version = version
      self.displayName = displayName
      self.description = description
      self.inputTokenLimit = inputTokenLimit
      self.outputTokenLimit = outputTokenLimit
      self.supportedGenerationMethods = supportedGenerationMethods
      self.thinking = thinking
      self.temperature = temperature
      self.maxTemperature = maxTemperature
      self.topP = topP
      self.topK = topK
    }

    /// The name without its `models/` prefix, as used in URLs and by ``GeminiModel/name``.
    public var shortName: String {
      name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name
    }
  }
}

/// The answer to `GET models`: one page of models.
public struct ListModelsResponse: Sendable, Hashable, Codable {
  /// The models on this page.
  public var models: [Gemini.ModelInfo]
  /// The token of the next page, or `nil` on the last page.
  public var nextPageToken: String?

  /// A page of models.
  public init(models: [Gemini.ModelInfo], nextPageToken: String? = nil) {
    self.models = models
    self.nextPageToken = nextPageToken
  }

  private enum CodingKeys: String, CodingKey { case models, nextPageToken }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    models = try c.decodeIfPresent([Gemini.ModelInfo].self, forKey: .models) ?? []
    nextPageToken = try c.decodeIfPresent(String.self, forKey: .nextPageToken)
  }
}
