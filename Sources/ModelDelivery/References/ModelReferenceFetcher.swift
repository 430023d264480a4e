import Foundation
import HybridAI

/// Finds the model a ``ModelReference`` names, fetching it when this machine lacks it: `hf:` from
/// the Hugging Face Hub into its shared cache (``HuggingFaceHubClient``), `registry:` from a HybridAI
/// registry (``ModelDownloader``, the installed copy when there is one). Files and `ollama:` models
/// are only looked up (``LocalModelResolver``).
///
/// ```swift
/// let model = try await ModelReferenceFetcher().model(for: try ModelReference("registry:smollm2")) { progress in
///   print(progress.receivedBytes, progress.totalBytes ?? 0)
/// }
/// let system = SystemLanguageModel(modelPath: model.weights.path)
/// ```
public struct ModelReferenceFetcher: Sendable {
  /// Looks up what is here.
  public var resolver: LocalModelResolver
  /// Fetches `hf:` models.
  public var hub: HuggingFaceHubClient
  /// The registry `registry:` models come from, and its API key.
  public var registryServer: URL
  public var registryAPIKey: String?

  /// The stores, Hub and registry the environment names: the Hub's variables (see
  /// ``HuggingFaceHubConfiguration``), `$HYBRIDAI_SERVER` (default `http://127.0.0.1:8080`) and
  /// `$HYBRIDAI_SERVER_API_KEY`.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    resolver = LocalModelResolver(environment: environment)
    hub = HuggingFaceHubClient(configuration: HuggingFaceHubConfiguration(environment: environment),
                               cache: HuggingFaceCache(environment: environment))
    let server = environment["HYBRIDAI_SERVER"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    registryServer = server ?? URL(string: "http://127.0.0.1:8080")!
    registryAPIKey = environment["HYBRIDAI_SERVER_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The model `reference` names, fetched first when it is an `hf:` or `registry:` model this
  /// machine lacks; `progress` sees the transfer.
  public func model(for reference: ModelReference,
                    progress: @escaping @Sendable (ModelFetchProgress) -> Void = { _ in }) async throws -> LocalModel {
    switch reference {
    case .file, .ollama:
      return try resolver.resolve(reference)
    case .huggingFace:
      return try await hub.model(for: reference, progress: progress)
    case .registry(let name):
      if let installed = try? resolver.resolve(reference) { return installed }
      return try await registryModel(name, downloadType: .localModel, progress: progress)
    }
  }

  /// The newest version of the model `reference` names: an `hf:` revision's files fetched again
  /// where the cache lacks them, a `registry:` model's latest version installed; files and `ollama:`
  /// models as they are (`hybrid models pull`).
  public func pull(_ reference: ModelReference,
                   progress: @escaping @Sendable (ModelFetchProgress) -> Void = { _ in }) async throws -> LocalModel {
    switch reference {
    case .file, .ollama: return try resolver.resolve(reference)
    case .huggingFace: return try await hub.fetch(reference, progress: progress)
    case .registry(let name): return try await registryModel(name, downloadType: .latestModel, progress: progress)
    }
  }

  /// A ``ModelFileSource`` for `reference`, for `SystemLanguageModel(modelFile:)`: an `hf:` model
  /// fetched into the cache, a `registry:` model installed, in the background when the model's
  /// assets are prepared (its availability says "downloading n%" meanwhile); a file or an
  /// `ollama:` model as it lies.
  ///
  /// ```swift
  /// let system = SystemLanguageModel(modelFile: ModelReferenceFetcher().modelFile(for: try ModelReference("hf:org/Model-GGUF")))
  /// ```
  public func modelFile(for reference: ModelReference) -> any ModelFileSource {
    switch reference {
    case .file, .ollama: ResolvedModelFile(reference, resolver: resolver)
    case .huggingFace: HuggingFaceModelFile(reference, hub: hub)
    case .registry(let name):
      ModelDownloader(server: registryServer, directory: resolver.registryModels, apiKey: registryAPIKey).modelFile(named: name)
    }
  }

  /// The registry's model `name`, got as `downloadType` says, its transfer reported to `progress`.
  private func registryModel(_ name: String, downloadType: ModelDownloadType,
                             progress: @escaping @Sendable (ModelFetchProgress) -> Void) async throws -> LocalModel {
    let downloader = ModelDownloader(server: registryServer, directory: resolver.registryModels, apiKey: registryAPIKey)
    let watcher = Task {
      for await update in downloader.progress(for: name) {
        progress(ModelFetchProgress(file: name, receivedBytes: update.bytesReceived, totalBytes: update.totalBytes))
      }
    }
    defer { watcher.cancel() }
    let model = try await downloader.getModel(name: name, downloadType: downloadType)
    progress(ModelFetchProgress(file: name, receivedBytes: model.size, totalBytes: model.size))
    return LocalModel(reference: .registry(name: name), weights: URL(fileURLWithPath: model.path))
  }
}
