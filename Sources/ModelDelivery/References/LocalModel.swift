import Foundation

/// A model found on this machine for a ``ModelReference``: its weights and, for a model that reads
/// images or sound, the projector beside them.
public struct LocalModel: Sendable, Hashable {
  /// The reference it was found for.
  public var reference: ModelReference
  /// The GGUF weights (the first part of a split model).
  public var weights: URL
  /// The multimodal projector (`mmproj*.gguf`, or Ollama's projector layer), when there is one.
  public var projector: URL?

  public init(reference: ModelReference, weights: URL, projector: URL? = nil) {
    self.reference = reference
    self.weights = weights
    self.projector = projector
  }
}
