/// What to embed, and how: the texts, an optional shorter vector, and what the vectors are for.
public struct EmbeddingRequest: Sendable, Hashable {
  /// The texts, each embedded on its own (at least one; none empty).
  public var texts: [String]
  /// Keep only the first `dimensions` values of each vector, scaled back to unit length (the
  /// "Matryoshka" truncation OpenAI's `dimensions` and Gemini's `outputDimensionality` ask for).
  /// `nil` keeps the model's whole vector.
  public var dimensions: Int?
  /// What the vectors will be used for: Gemini's `taskType`. Models without such a setting (on
  /// device, OpenAI-compatible servers) ignore it; prefix the texts as your model's card says instead.
  public var purpose: EmbeddingPurpose?

  public init(texts: [String], dimensions: Int? = nil, purpose: EmbeddingPurpose? = nil) {
    self.texts = texts
    self.dimensions = dimensions
    self.purpose = purpose
  }

  /// What makes this request one no model can serve, in words, or `nil`: no texts, an empty
  /// text, a `dimensions` below 1 or above `modelDimensions` (when known).
  public func problem(modelDimensions: Int? = nil) -> String? {
    if texts.isEmpty { return "there is no text to embed" }
    if let empty = texts.firstIndex(where: \.isEmpty) {
      return texts.count == 1 ? "the text to embed is empty" : "text \(empty + 1) of \(texts.count) is empty"
    }
    if let dimensions {
      if dimensions < 1 { return "dimensions must be at least 1 (got \(dimensions))" }
      if let modelDimensions, dimensions > modelDimensions {
        return "dimensions \(dimensions) is more than the model's \(modelDimensions)"
      }
    }
    return nil
  }

  /// Throws ``GenerationError/unsupportedRequest(_:)`` with ``problem(modelDimensions:)``, if any.
  public func validate(modelDimensions: Int? = nil) throws(GenerationError) {
    if let problem = problem(modelDimensions: modelDimensions) { throw .unsupportedRequest(.other(problem)) }
  }
}

/// What embeddings are for, so a model that offers it can tune them (Gemini's `taskType`).
public enum EmbeddingPurpose: String, Sendable, Hashable, CaseIterable, Codable {
  /// A search query, matched against ``retrievalDocument`` vectors.
  case retrievalQuery = "RETRIEVAL_QUERY"
  /// A document to be found by ``retrievalQuery`` vectors.
  case retrievalDocument = "RETRIEVAL_DOCUMENT"
  /// Comparing texts with one another.
  case semanticSimilarity = "SEMANTIC_SIMILARITY"
  /// Input to a classifier.
  case classification = "CLASSIFICATION"
  /// Grouping texts.
  case clustering = "CLUSTERING"
  /// A question, matched against documents that answer it.
  case questionAnswering = "QUESTION_ANSWERING"
  /// A claim, matched against documents that support or refute it.
  case factVerification = "FACT_VERIFICATION"
  /// A natural-language query for code.
  case codeRetrievalQuery = "CODE_RETRIEVAL_QUERY"
}
