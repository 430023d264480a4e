/// A request to `models/{model}:countTokens`: either bare contents, or a whole
/// ``GenerateContentRequest`` (to count instructions, tools and configuration too).
public struct CountTokensRequest: Sendable, Hashable, Codable {
  /// Contents to count.
  public var contents: [Gemini.Content]?
  /// A whole request to count. Set this or ``contents``, not both.
  public var generateContentRequest: GenerateContentRequest?

  /// Counts bare contents.
  public init(contents: [Gemini.Content]) {
    self.contents = contents
  }

  /// Counts a whole request.
  public init(generateContentRequest: GenerateContentRequest) {
    self.generateContentRequest = generateContentRequest
  }

  private enum CodingKeys: String, CodingKey { case contents, generateContentRequest }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    contents = try c.wire([Gemini.Content].self, "contents")
    generateContentRequest = try c.wire(GenerateContentRequest.self, "generateContentRequest")
  }
}

/// The answer to a ``CountTokensRequest``.
public struct CountTokensResponse: Sendable, Hashable, Codable {
  /// Tokens in the prompt.
  public var totalTokens: Int
  /// Tokens of the cached content part of the prompt.
  public var cachedContentTokenCount: Int?
  /// ``totalTokens`` by modality.
  public var promptTokensDetails: [Gemini.ModalityTokenCount]?

  /// A count from its fields.
  public init(totalTokens: Int, cachedContentTokenCount: Int? = nil,
              promptTokensDetails: [Gemini.ModalityTokenCount]? = nil) {
    self.totalTokens = totalTokens
    self.cachedContentTokenCount = cachedContentTokenCount
    self.promptTokensDetails = promptTokensDetails
  }

  private enum CodingKeys: String, CodingKey { case totalTokens, cachedContentTokenCount, promptTokensDetails }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    // The API leaves `totalTokens` out when it is zero.
    totalTokens = try c.decodeIfPresent(Int.self, forKey: .totalTokens) ?? 0
    cachedContentTokenCount = try c.decodeIfPresent(Int.self, forKey: .cachedContentTokenCount)
    promptTokensDetails = try c.decodeIfPresent([Gemini.ModalityTokenCount].self, forKey: .promptTokensDetails)
  }
}
