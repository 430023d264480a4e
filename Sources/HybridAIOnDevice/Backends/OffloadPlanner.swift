/// Decides how many layers of a model go to which GPU (``GPULayers`` and a device name → a
/// ``ModelPlacement``). A pure function of the model's shape and the devices, so its rules are
/// tested without a GPU.
///
/// The estimate per layer is its share of the weights plus its share of the KV cache for the
/// context; the device also keeps a reserve for llama.cpp's compute buffers. This pinned llama.cpp
/// has no fitting API of its own (`llama_params_fit` came later), so the rule lives here.
enum OffloadPlanner {
  /// Kept free on the device for compute buffers, the CUDA context and fragmentation, per llama.cpp
  /// context that uses the weights at once.
  static let reserveBytes: UInt64 = 768 << 20

  /// - Parameter contexts: llama.cpp contexts that will use these weights at once (a batched
  ///   model's several contexts), each with compute buffers of its own: a reserve for each.
  static func place(shape: GGUFModelShape, contextTokens: Int, request: GPULayers, deviceName: String?,
                    devices: [ComputeDevice], backendsFolder: String, contexts: Int = 1) throws(OffloadError) -> ModelPlacement {
    let reserveBytes = Self.reserveBytes * UInt64(max(1, contexts))
    let total = max(1, shape.offloadableLayers)
    let cpu = devices.first { $0.kind == .cpu }
      ?? ComputeDevice(name: "CPU", description: "CPU", backend: "CPU", kind: .cpu, freeMemory: 0, totalMemory: 0)   // pure: no lookup
    func onCPU(_ reason: String) -> ModelPlacement {
      ModelPlacement(device: cpu, gpuLayers: 0, totalLayers: total, requiredBytes: 0, reason: reason)
    }

    var gpu: ComputeDevice?
    if let deviceName {
      guard let named = devices.first(where: { $0.name.lowercased() == deviceName.lowercased() }) else {
        throw .unknownDevice(deviceName, available: devices.map(\.name))
      }
      if !named.isGPU {
        if case .count = request { throw .noGPU(backendsFolder: backendsFolder) }
        return onCPU("the device \(named.name) was chosen")
      }
      gpu = named
    } else {
      gpu = devices.first(where: \.isGPU)
    }

    let perLayer = (shape.fileSize / UInt64(total)).addingSaturated(
      shape.keyValueBytesPerTokenPerLayer.multipliedSaturated(by: UInt64(max(0, contextTokens))))
    switch request {
    case .none:
      return onCPU("GPU offload is off")
    case .count(let count):
      guard count > 0 else { throw .invalidLayerCount("\(count)") }   // llama.cpp reads a negative count as "all"
      guard let gpu else { throw .noGPU(backendsFolder: backendsFolder) }
      guard count <= total else { throw .layerCountOutOfRange(requested: count, available: total) }
      let needed = perLayer.multipliedSaturated(by: UInt64(count))
      let fits = needed.addingSaturated(reserveBytes) <= gpu.freeMemory
      return ModelPlacement(device: gpu, gpuLayers: count, totalLayers: total, requiredBytes: needed,
                            reason: fits ? "\(count) layers as configured" : "\(count) layers as configured; they may not fit")
    case .automatic:
      guard let gpu else { return onCPU("no GPU backend is loaded") }
      let usable = gpu.freeMemory > reserveBytes ? gpu.freeMemory - reserveBytes : 0
      let fitting = perLayer == 0 ? total : Int(min(UInt64(total), usable / perLayer))
      if fitting == 0 {
        return onCPU("\(gpu.name) has \(ComputeDevice.gibibytes(gpu.freeMemory)) free, less than one layer needs")
      }
      let reason = fitting == total ? "everything fits"
        : "only \(fitting) of \(total) layers fit in \(ComputeDevice.gibibytes(gpu.freeMemory)) free"
      return ModelPlacement(device: gpu, gpuLayers: fitting, totalLayers: total,
                            requiredBytes: perLayer.multipliedSaturated(by: UInt64(fitting)), reason: reason)
    }
  }
}
