import CLlama
import Foundation
import HybridAI
import Logging
import Synchronization

/// Loads each projector once per weights and hands the same ``MultimodalProjector`` to every
/// session and sequence of those weights.
final class ProjectorCache: Sendable {
  static let shared = ProjectorCache()

  private struct Key: Hashable {
    let weights: ObjectIdentifier
    let file: FileIdentity
  }

  private let loaded = Mutex<[Key: MultimodalProjector]>([:])
  private let capabilities = Mutex<[FileIdentity: Set<Modality>]>([:])

  /// The projector at `path` for `weights`, loaded on first use (a blocking load, once).
  func projector(at path: String, for weights: LlamaModelWeights, threads: Int, useGPU: Bool,
                 logger: Logger) throws(OnDeviceModelError) -> MultimodalProjector {
    guard let file = FileIdentity(path: path) else { throw .projectorFileMissing(path: path) }
    let key = Key(weights: ObjectIdentifier(weights), file: file)
    return try loaded.withLock { (loaded) throws(OnDeviceModelError) -> MultimodalProjector in
      if let projector = loaded[key] { return projector }
      let projector = try MultimodalProjector(path: path, weights: weights, threads: threads, useGPU: useGPU, logger: logger)
      loaded[key] = projector
      return projector
    }
  }

  /// The kinds of content besides text that the projector at `path` reads, from its header
  /// (without loading it). A file whose header does not say (missing, corrupt, not a projector)
  /// claims both, so that a request with media reaches the load and its typed error
  /// (``OnDeviceModelError/invalidProjector(path:reason:)``) instead of a silent "not supported".
  func modalities(ofProjectorAt path: String) -> Set<Modality> {
    guard let file = FileIdentity(path: path) else { return [.image, .audio] }
    if let known = capabilities.withLock({ $0[file] }) { return known }
    LlamaRuntime.ensureInitialised()
    let (caps, _) = MultimodalLog.capturingErrors { mtmd_get_cap_from_file(path) }
    var modalities: Set<Modality> = []
    if caps.inp_vision { modalities.insert(.image) }
    if caps.inp_audio { modalities.insert(.audio) }
    if modalities.isEmpty { modalities = [.image, .audio] }
    capabilities.withLock { $0[file] = modalities }
    return modalities
  }

  /// Frees every projector (before the weights are released at the end of the process).
  func releaseAll() {
    let all = loaded.withLock { loaded in
      defer { loaded.removeAll() }
      return Array(loaded.values)
    }
    for projector in all { projector.release() }
  }
}
