import Foundation

/// Finds the model a ``ModelReference`` names among what is on this machine: a file as it is,
/// `hf:` in Hugging Face's shared cache, `ollama:` in Ollama's store. Nothing is downloaded or
/// copied; a model that is not there is ``ModelReferenceError/notFound(_:looked:)``.
public struct LocalModelResolver: Sendable {
  /// Where `hf:` references are looked up.
  public var huggingFaceCache: HuggingFaceCache
  /// Where `ollama:` references are looked up.
  public var ollamaStore: OllamaStore

  /// The stores the environment names (see ``HuggingFaceCache/init(environment:)`` and
  /// ``OllamaStore/init(environment:)``).
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    huggingFaceCache = HuggingFaceCache(environment: environment)
    ollamaStore = OllamaStore(environment: environment)
  }

  /// The model `reference` names. A file reference is returned as it is (a missing file is the
  /// model's own availability to report).
  public func resolve(_ reference: ModelReference) throws(ModelReferenceError) -> LocalModel {
    switch reference {
    case .file(let path): LocalModel(reference: reference, weights: URL(fileURLWithPath: path))
    case .huggingFace: try huggingFaceCache.locate(reference)
    case .ollama: try ollamaStore.locate(reference)
    }
  }
}
