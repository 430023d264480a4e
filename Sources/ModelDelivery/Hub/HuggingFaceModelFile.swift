import Foundation
import HybridAI
import Synchronization

/// A ``ModelFileSource`` for an `hf:` model: ready when Hugging Face's cache holds it, else fetched
/// from the Hub in the background when ``prepareFile()`` is called, with its progress in
/// ``fileState`` — so a `SystemLanguageModel` made from it reports "downloading n%" meanwhile, and a
/// prefer-on-device session answers from the cloud until the file is there.
///
/// ```swift
/// let file = HuggingFaceModelFile(try ModelReference("hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0"))
/// let system = SystemLanguageModel(modelFile: file)
/// system.prepareAssets()          // or let the first request start the fetch
/// ```
public final class HuggingFaceModelFile: ModelFileSource {
  /// The `hf:` reference.
  public let reference: ModelReference
  private let hub: HuggingFaceHubClient
  private let state = Mutex(State())

  private struct State {
    var ready: LocalModel?
    var fetch: Task<Void, Never>?
    var progress: ModelFetchProgress?
    var failure: String?
  }

  /// - Parameters:
  ///   - reference: An `hf:` reference (`hf:ORG/REPO[:QUANT][@REVISION]`).
  ///   - hub: The Hub and cache it is fetched from and found in (the environment's by default).
  public init(_ reference: ModelReference, hub: HuggingFaceHubClient = HuggingFaceHubClient()) {
    guard case .huggingFace = reference else { preconditionFailure("HuggingFaceModelFile takes an hf: reference, not \(reference)") }
    self.reference = reference
    self.hub = hub
  }

  public var name: String { reference.description }

  /// `.ready` once the cache holds the model (its weights' path; the version is the snapshot's
  /// commit), else `.downloading` while a fetch is under way, `.failed` when the last one failed,
  /// else `.notDownloaded`. The first look at a cached model checks its blob's hash; later ones
  /// cost a `stat`.
  public var fileState: ModelFileState {
    let known = state.withLock { state -> ModelFileState? in
      if let ready = state.ready, FileManager.default.fileExists(atPath: ready.weights.path) {
        return Self.readyState(ready)
      }
      state.ready = nil
      if state.fetch != nil {
        return .downloading(bytesReceived: state.progress?.receivedBytes ?? 0, totalBytes: state.progress?.totalBytes)
      }
      return state.failure.map { .failed(reason: $0) }
    }
    if let known { return known }
    guard let cached = try? hub.cache.locate(reference) else { return .notDownloaded }
    state.withLock { $0.ready = cached }
    return Self.readyState(cached)
  }

  /// The model as found in the cache, projector included, once it is there.
  public var localModel: LocalModel? {
    if case .ready = fileState { return state.withLock { $0.ready } }
    return nil
  }

  /// Starts fetching the model in the background unless the cache holds it or a fetch is under way.
  public func prepareFile() {
    if case .ready = fileState { return }
    state.withLock { state in
      guard state.fetch == nil else { return }
      state.failure = nil
      state.progress = nil
      state.fetch = Task { [hub, reference] in
        let outcome: Result<LocalModel, any Error>
        do {
          outcome = .success(try await hub.fetch(reference) { progress in
            self.state.withLock { $0.progress = progress }
          })
        } catch {
          outcome = .failure(error)
        }
        self.state.withLock { state in
          state.fetch = nil
          switch outcome {
          case .success(let model): state.ready = model
          case .failure(let error): state.failure = "\(error)"
          }
        }
      }
    }
  }

  private static func readyState(_ model: LocalModel) -> ModelFileState {
    let folder = model.weights.deletingLastPathComponent().lastPathComponent
    return .ready(path: model.weights.path, version: folder.wholeMatch(of: /[0-9a-f]{40}/) != nil ? folder : "cached")
  }
}
