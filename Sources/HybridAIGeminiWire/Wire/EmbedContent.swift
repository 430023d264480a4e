/// A request to `models/{model}:embedContent`, and one entry of a ``BatchEmbedContentsRequest``.
public struct EmbedContentRequest: Sendable, Hashable, Codable {
  /// `models/{model}`: required in a batch entry (the same model as the call's), optional alone.
  public var model: String?
  /// The text to embed (its text parts, joined).
  public var content: Gemini.Content
  /// What the vector is for (`RETRIEVAL_QUERY`, `SEMANTIC_SIMILARITY`, …).
  public var taskType: String?
  /// A document's title, with `RETRIEVAL_DOCUMENT`.
  public var title: String?
  /// Keep only the first values of the vector.
  public var outputDimensionality: Int?

  public init(model: String? = nil, content: Gemini.Content, taskType: String? = nil, title: String? = nil,
              outputDimensionality: Int? = nil) {
    self.model = model
    self.content = content
    self.taskType = taskType
    self.title = title
    self.outputDimensionality = outputDimensionality
  }

  private enum CodingKeys: String, CodingKey { case model, content, taskType, title, outputDimensionality }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    model = try c.wire(String.self, "model")
    content = try c.requiredWire(Gemini.Content.self, "content")
    taskType = try c.wire(String.self, "taskType")
    title = try c.wire(String.self, "title")
    outputDimensionality = try c.wire(Int.self, "outputDimensionality")
  }
}

/// A request to `models/{model}:batchEmbedContents`: several texts in one call.
public struct BatchEmbedContentsRequest: Sendable, Hashable, Codable {
  public var requests: [EmbedContentRequest]

  public init(requests: [EmbedContentRequest]) {
    self.requests = requests
  }

  private enum CodingKeys: String, CodingKey { case requests }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    requests = try c.requiredWire([EmbedContentRequest].self, "requests")
  }
}

/// One vector.
public struct ContentEmbedding: Sendable, Hashable, Codable {
  public var values: [Float]

  public init(values: [Float]) {
    self.values = values
  }

  private enum CodingKeys: String, CodingKey { case values }

  /// The API leaves `values` out when it is empty.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    values = try c.decodeIfPresent([Float].self, forKey: .values) ?? []
  }
}

/// The answer to an ``EmbedContentRequest``.
public struct EmbedContentResponse: Sendable, Hashable, Codable {
  public var embedding: ContentEmbedding

  public init(embedding: ContentEmbedding) {
    self.embedding = embedding
  }
}

/// The answer to a ``BatchEmbedContentsRequest``: one vector per request, in order.
public struct BatchEmbedContentsResponse: Sendable, Hashable, Codable {
  public var embeddings: [ContentEmbedding]

  public init(embeddings: [ContentEmbedding]) {
    self.embeddings = embeddings
  }

  private enum CodingKeys: String, CodingKey { case embeddings }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    embeddings = try c.decodeIfPresent([ContentEmbedding].self, forKey: .embeddings) ?? []
  }
}
