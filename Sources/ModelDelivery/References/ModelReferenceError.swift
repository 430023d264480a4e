/// Why a model reference cannot be used.
public enum ModelReferenceError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text does not follow the reference's form.
  case malformed(String, reason: String)
  /// The store holds nothing under this reference (`looked` says where it looked).
  case notFound(ModelReference, looked: String)
  /// The repository's cached snapshot has no GGUF with this quantization; `available` lists the
  /// tags it has.
  case quantizationNotFound(ModelReference, available: [String])
  /// The store holds the reference, but a file it names is missing, a link is broken or points
  /// outside the store, or a manifest cannot be read.
  case damaged(ModelReference, reason: String)

  public var description: String {
    switch self {
    case .malformed(let text, let reason): "\(text) is not a model reference: \(reason)"
    case .notFound(let reference, let looked): "\(reference) is not on this machine (looked in \(looked))"
    case .quantizationNotFound(let reference, let available):
      "\(reference): no GGUF of that quantization in the cache; it has "
        + (available.isEmpty ? "none" : available.joined(separator: ", "))
    case .damaged(let reference, let reason): "\(reference) cannot be used: \(reason)"
    }
  }
}
