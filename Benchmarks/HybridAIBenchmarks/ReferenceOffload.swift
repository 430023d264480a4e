import HybridAIOnDevice

/// The layers llama.cpp's own tools put on a GPU in a benchmark: exactly as many, on the same
/// device, as HybridAI's placement of the model (`--gpu-layers`, `--device`), so that both sides
/// of a ratio run the same layers in the same place. Left to themselves the pinned tools would
/// offload by their own fitting rules (`-ngl` -1, "auto"), or not at all with `-ngl 0`.
struct ReferenceOffload: Sendable, Hashable {
  /// Layers on the GPU (`-ngl`); 0 keeps the model on the CPU.
  let gpuLayers: Int
  /// The device (`-dev`, llama.cpp's name such as `CUDA0`), when layers go to one.
  let device: String?

  init(_ placement: ModelPlacement) {
    gpuLayers = placement.gpuLayers
    device = placement.usesGPU ? placement.device.name : nil
  }

  /// `-ngl N` and, with a device, `-dev NAME`: the same flags for llama-server and llama-batched-bench.
  var arguments: [String] {
    ["-ngl", "\(gpuLayers)"] + (device.map { ["-dev", $0] } ?? [])
  }
}
