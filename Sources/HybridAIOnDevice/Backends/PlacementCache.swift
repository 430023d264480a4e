import Synchronization

/// The first placement planned for a model file and configuration, kept for the process: once
/// the weights are loaded the GPU's free memory shrinks, and planning again would move them.
final class PlacementCache: Sendable {
  static let shared = PlacementCache()

  private struct Key: Hashable {
    let file: FileIdentity
    let contextTokens: Int
    let request: GPULayers
    let deviceName: String?
    let contexts: Int
  }

  private let placements = Mutex<[Key: ModelPlacement]>([:])

  func placement(of path: String, shape: GGUFModelShape, contextTokens: Int, request: GPULayers,
                 deviceName: String?, contexts: Int = 1) throws(OffloadError) -> ModelPlacement {
    guard let file = FileIdentity(path: path) else {
      return try plan(shape: shape, contextTokens: contextTokens, request: request, deviceName: deviceName, contexts: contexts)
    }
    let key = Key(file: file, contextTokens: contextTokens, request: request, deviceName: deviceName, contexts: contexts)
    if let known = placements.withLock({ $0[key] }) { return known }
    let planned = try plan(shape: shape, contextTokens: contextTokens, request: request, deviceName: deviceName,
                           contexts: contexts)
    return placements.withLock { placements in
      if let raced = placements[key] { return raced }
      placements[key] = planned
      return planned
    }
  }

  private func plan(shape: GGUFModelShape, contextTokens: Int, request: GPULayers,
                    deviceName: String?, contexts: Int) throws(OffloadError) -> ModelPlacement {
    try OffloadPlanner.place(shape: shape, contextTokens: contextTokens, request: request, deviceName: deviceName,
                             devices: ComputeBackends.devices, backendsFolder: ComputeBackends.folders.last ?? "?",
                             contexts: contexts)
  }
}
