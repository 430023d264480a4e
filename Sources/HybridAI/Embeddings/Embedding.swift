/// One text's vector.
public struct Embedding: Sendable, Hashable {
  /// The vector. Unit length when the model says so (on device and OpenAI's models always are).
  public var values: [Float]
  /// The tokens the text took, when the model reports them per text.
  public var tokenCount: Int?

  public init(values: [Float], tokenCount: Int? = nil) {
    self.values = values
    self.tokenCount = tokenCount
  }

  /// The vector's length: how many values it has.
  public var dimensions: Int { values.count }

  /// The cosine of the angle between the two vectors: 1 for the same direction, 0 for unrelated,
  /// −1 for opposite. 0 when either is all zeros. Both must have the same dimensions.
  public func cosineSimilarity(to other: Embedding) -> Float {
    precondition(values.count == other.values.count,
                 "cannot compare a \(values.count)-dimensional embedding with a \(other.values.count)-dimensional one")
    var dot: Float = 0, selfSquares: Float = 0, otherSquares: Float = 0
    for index in values.indices {
      dot += values[index] * other.values[index]
      selfSquares += values[index] * values[index]
      otherSquares += other.values[index] * other.values[index]
    }
    let norms = (selfSquares * otherSquares).squareRoot()
    return norms > 0 ? dot / norms : 0
  }

  /// The Euclidean length of the vector (1 for a normalised one).
  public var magnitude: Float {
    values.reduce(0) { $0 + $1 * $1 }.squareRoot()
  }

  /// The first `dimensions` values scaled to unit length: a shorter vector of a model trained for
  /// it (Matryoshka), or what ``EmbeddingRequest/dimensions`` asks for. The whole vector, unit
  /// length, when `dimensions` is `nil` or not below ``dimensions``.
  public func truncated(to dimensions: Int?) -> Embedding {
    var kept = values
    if let dimensions, dimensions < kept.count { kept.removeSubrange(dimensions...) }
    let length = kept.reduce(0) { $0 + $1 * $1 }.squareRoot()
    if length > 0 { for index in kept.indices { kept[index] /= length } }
    return Embedding(values: kept, tokenCount: tokenCount)
  }
}
