import Foundation
import Logging
import Synchronization

/// Loads each model file once per process and hands the same ``LlamaModelWeights`` to everyone.
///
/// Entries are keyed by the file's identity (path, size, modification time), so a replaced file
/// is loaded again. A file that failed to load is remembered, so availability checks can report
/// it without trying again. Weights loaded from a path are kept for it: when the file is moved or
/// deleted afterwards, they go on answering from memory (``keptWeights(at:)``).
final class LlamaWeightsCache: Sendable {
  static let shared = LlamaWeightsCache()

  /// A file loaded with one placement (the same file offloaded differently is another load).
  private struct Key: Hashable {
    let file: FileIdentity
    let gpuLayers: Int
    let device: String
  }

  private let loads = Mutex<[Key: Task<LlamaModelWeights, any Error>]>([:])
  private let failures = Mutex<[FileIdentity: OnDeviceModelError]>([:])
  private let loadedByPath = Mutex<[String: LlamaModelWeights]>([:])
  private let logger = Logger(label: "HybridAI.llama.weights")

  /// The weights of the model at `path` placed as `placement` says, loading them on first use
  /// (off the cooperative pool).
  func weights(at path: String, placement: ModelPlacement) async throws -> LlamaModelWeights {
    guard let identity = FileIdentity(path: path) else {
      if let kept = keptWeights(at: path) { return kept }
      throw OnDeviceModelError.modelFileMissing(path: path)
    }
    let key = Key(file: identity, gpuLayers: placement.gpuLayers, device: placement.usesGPU ? placement.device.name : "")
    let load = loads.withLock { loads in
      if let existing = loads[key] { return existing }
      let logger = self.logger
      let task = Task<LlamaModelWeights, any Error> {
        try await withCheckedThrowingContinuation { continuation in
          DispatchQueue.global(qos: .userInitiated).async {
            let started = ContinuousClock.now
            continuation.resume(with: Result { () throws(OnDeviceModelError) in
              let weights = try LlamaModelWeights(path: path, placement: placement)
              logger.debug("loaded model weights", metadata: [
                "path": "\(path)", "seconds": "\((ContinuousClock.now - started).components.seconds)",
                "placement": "\(placement)",
              ])
              return weights
            })
          }
        }
      }
      loads[key] = task
      return task
    }
    do {
      let weights = try await load.value
      loadedByPath.withLock { $0[path] = weights }
      return weights
    } catch let error as OnDeviceModelError {
      failures.withLock { $0[identity] = error }
      throw error
    }
  }

  /// The weights of the model at `path`, placed as a default ``SystemLanguageModel`` would place them.
  func weights(at path: String) async throws -> LlamaModelWeights {
    try await weights(at: path, placement: SystemLanguageModel(modelPath: path).placement())
  }

  /// Frees every loaded model's weights and forgets them (the end of the process). Loads still
  /// running are awaited first.
  func releaseAll() async {
    loadedByPath.withLock { $0.removeAll() }
    let all = loads.withLock { loads in
      defer { loads.removeAll() }
      return Array(loads.values)
    }
    for load in all {
      guard let weights = try? await load.value else { continue }
      weights.release()
      logger.debug("freed model weights", metadata: ["path": "\(weights.path)"])
    }
  }

  /// The weights last loaded from `path`, if any: still in memory whether or not the file is.
  func keptWeights(at path: String) -> LlamaModelWeights? {
    loadedByPath.withLock { $0[path] }
  }

  /// The error of an earlier failed load of this exact file, if any.
  func loadFailure(at path: String) -> OnDeviceModelError? {
    guard let identity = FileIdentity(path: path) else { return nil }
    return failures.withLock { $0[identity] }
  }
}
