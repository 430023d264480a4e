import Foundation
import Logging

/// Finds the model a ``ModelReference`` names among what is on this machine: a file as it is,
/// `hf:` in Hugging Face's shared cache, `ollama:` in Ollama's store, `registry:` among the models
/// ``ModelDownloader`` installed. Nothing is downloaded or copied; a model that is not there is
/// ``ModelReferenceError/notFound(_:looked:)``.
public struct LocalModelResolver: Sendable {
  /// Where `hf:` references are looked up.
  public var huggingFaceCache: HuggingFaceCache
  /// Where `ollama:` references are looked up.
  public var ollamaStore: OllamaStore
  /// Where `registry:` models are looked up (``ModelDownloader``'s directory).
  public var registryModels: URL

  /// The stores the environment names (see ``HuggingFaceCache/init(environment:)`` and
  /// ``OllamaStore/init(environment:)``).
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    huggingFaceCache = HuggingFaceCache(environment: environment)
    ollamaStore = OllamaStore(environment: environment)
    registryModels = ModelDownloader.defaultDirectory(environment: environment)
  }

  /// The model `reference` names. A file reference is returned as it is (a missing file is the
  /// model's own availability to report), with the projector beside it that ``ProjectorPairing`` finds.
  public func resolve(_ reference: ModelReference) throws(ModelReferenceError) -> LocalModel {
    switch reference {
    case .file(let path):
      let weights = URL(fileURLWithPath: path)
      return LocalModel(reference: reference, weights: weights, projector: ProjectorPairing.projector(besides: weights))
    case .huggingFace:
      return try huggingFaceCache.locate(reference)
    case .ollama:
      return try ollamaStore.locate(reference)
    case .registry(let name):
      let store = ModelStore(root: registryModels, logger: Logger(label: "HybridAI.modelDelivery"))
      guard let record = store.installed(name) else {
        throw .notFound(reference, looked: registryModels.appendingPathComponent(name).path)
      }
      return LocalModel(reference: reference, weights: URL(fileURLWithPath: store.filePath(for: record)))
    }
  }
}
