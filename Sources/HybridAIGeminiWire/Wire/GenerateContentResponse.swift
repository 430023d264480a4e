/// The answer to a ``GenerateContentRequest``, or one chunk of a streamed answer.
public struct GenerateContentResponse: Sendable, Hashable, Codable {
  /// The answers; empty when the prompt was blocked. Left out of the JSON when empty.
  public var candidates: [Gemini.Candidate]
  /// Set when the prompt was blocked, and the prompt's safety ratings.
  public var promptFeedback: PromptFeedback?
  /// Token counts (in a stream: the counts so far).
  public var usageMetadata: UsageMetadata?
  /// The model version that answered, e.g. `gemini-2.5-flash`.
  public var modelVersion: String?
  /// The response's identifier (the same for every chunk of a stream).
  public var responseId: String?
  /// When the response was created (RFC 3339), Vertex AI only.
  public var createTime: String?

  /// A response from its fields.
  public init(candidates: [Gemini.Candidate] = [], promptFeedback: PromptFeedback? = nil,
              usageMetadata: UsageMetadata? = nil, modelVersion: String? = nil, responseId: String? = nil,
              createTime: String? = nil) {
    self.candidates = candidates
    self.promptFeedback = promptFeedback
    self.usageMetadata = usageMetadata
    self.modelVersion = modelVersion
    self.responseId = responseId
    self.createTime = createTime
  }

  /// A response (or stream chunk) with one model candidate holding `text`; what a server sends.
  public static func text(_ text: String, finishReason: Gemini.FinishReason? = nil, usage: UsageMetadata? = nil,
                          modelVersion: String? = nil, responseId: String? = nil) -> GenerateContentResponse {
    GenerateContentResponse(
      candidates: [Gemini.Candidate(content: .model(text), finishReason: finishReason, index: 0)],
      usageMetadata: usage, modelVersion: modelVersion, responseId: responseId)
  }

  /// The first candidate's text, thoughts excluded.
  public var text: String { candidates.first?.text ?? "" }

  /// The first candidate's finish reason.
  public var finishReason: Gemini.FinishReason? { candidates.first?.finishReason }

  private enum CodingKeys: String, CodingKey {
    case candidates, promptFeedback, usageMetadata, modelVersion, responseId, createTime
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    candidates = try container.decodeIfPresent([Gemini.Candidate].self, forKey: .candidates) ?? []
    promptFeedback = try container.decodeIfPresent(PromptFeedback.self, forKey: .promptFeedback)
    usageMetadata = try container.decodeIfPresent(UsageMetadata.self, forKey: .usageMetadata)
    modelVersion = try container.decodeIfPresent(String.self, forKey: .modelVersion)
    responseId = try container.decodeIfPresent(String.self, forKey: .responseId)
    createTime = try container.decodeIfPresent(String.self, forKey: .createTime)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    if !candidates.isEmpty { try container.encode(candidates, forKey: .candidates) }
    try container.encodeIfPresent(promptFeedback, forKey: .promptFeedback)
    try container.encodeIfPresent(usageMetadata, forKey: .usageMetadata)
    try container.encodeIfPresent(modelVersion, forKey: .modelVersion)
    try container.encodeIfPresent(responseId, forKey: .responseId)
    try container.encodeIfPresent(createTime, forKey: .createTime)
  }
}
