/// Token counts of a request and its answer (`usageMetadata` of a ``GenerateContentResponse``).
///
/// In a stream, every chunk carries the counts so far; the last chunk's are the totals.
public struct UsageMetadata: Sendable, Hashable, Codable {
  /// Tokens in the prompt, cached tokens included.
  public var promptTokenCount: Int?
  /// Prompt tokens served from a cache (context caching).
  public var cachedContentTokenCount: Int?
  /// Tokens of all candidates' answers, thoughts excluded.
  public var candidatesTokenCount: Int?
  /// Tokens of tool-use prompts (search results, fetched pages, code output).
  public var toolUsePromptTokenCount: Int?
  /// Tokens the model spent thinking.
  public var thoughtsTokenCount: Int?
  /// Everything together.
  public var totalTokenCount: Int?
  /// ``promptTokenCount`` by modality.
  public var promptTokensDetails: [Gemini.ModalityTokenCount]?
  /// ``cachedContentTokenCount`` by modality.
  public var cacheTokensDetails: [Gemini.ModalityTokenCount]?
  /// ``candidatesTokenCount`` by modality.
  public var candidatesTokensDetails: [Gemini.ModalityTokenCount]?
  /// ``toolUsePromptTokenCount`` by modality.
  public var toolUsePromptTokensDetails: [Gemini.ModalityTokenCount]?

  /// Token counts from their fields.
  public init(promptTokenCount: Int? = nil, cachedContentTokenCount: Int? = nil, candidatesTokenCount: Int? = nil,
              toolUsePromptTokenCount: Int? = nil, thoughtsTokenCount: Int? = nil, totalTokenCount: Int? = nil,
              promptTokensDetails: [Gemini.ModalityTokenCount]? = nil,
              cacheTokensDetails: [Gemini.ModalityTokenCount]? = nil,
              candidatesTokensDetails: [Gemini.ModalityTokenCount]? = nil,
              toolUsePromptTokensDetails: [Gemini.ModalityTokenCount]? = nil) {
    self.promptTokenCount = promptTokenCount
    self.cachedContentTokenCount = cachedContentTokenCount
    self.candidatesTokenCount = candidatesTokenCount
    self.toolUsePromptTokenCount = toolUsePromptTokenCount
    self.thoughtsTokenCount = thoughtsTokenCount
    self.totalTokenCount = totalTokenCount
    self.promptTokensDetails = promptTokensDetails
    self.cacheTokensDetails = cacheTokensDetails
    self.candidatesTokensDetails = candidatesTokensDetails
    self.toolUsePromptTokensDetails = toolUsePromptTokensDetails
  }
}

extension Gemini {
  /// A token count for one modality (`TEXT`, `IMAGE`, `AUDIO`, `VIDEO`, `DOCUMENT`).
  public struct ModalityTokenCount: Sendable, Hashable, Codable {
    /// The modality, when the API names it.
    public var modality: String?
    /// Its tokens.
    public var tokenCount: Int?

    /// A count for one modality.
    public init(modality: String?, tokenCount: Int?) {
      self.modality = modality
      self.tokenCount = tokenCount
    }
  }
}
