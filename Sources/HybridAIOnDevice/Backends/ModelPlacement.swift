/// Where a model's layers run, and why: the answer to ``GPULayers`` on this machine.
///
/// Its description is what `hybrid serve` prints at start, for example
/// `CUDA0 NVIDIA H100 80GB HBM3: 31/31 layers, 1.0 GiB of 79.1 GiB free (everything fits)` or
/// `CPU: 31 layers (no GPU backend is loaded)`.
public struct ModelPlacement: Sendable, Hashable, CustomStringConvertible {
  /// The device holding the offloaded layers; the CPU when none are offloaded.
  public let device: ComputeDevice
  /// Layers on ``device`` (0 when the device is the CPU).
  public let gpuLayers: Int
  /// Layers the model has (its blocks and the output layer).
  public let totalLayers: Int
  /// Estimated bytes the offloaded layers and their share of the KV cache need on the device.
  public let requiredBytes: UInt64
  /// Why this placement, in words.
  public let reason: String

  public init(device: ComputeDevice, gpuLayers: Int, totalLayers: Int, requiredBytes: UInt64, reason: String) {
    self.device = device
    self.gpuLayers = gpuLayers
    self.totalLayers = totalLayers
    self.requiredBytes = requiredBytes
    self.reason = reason
  }

  /// Whether any layer runs on a GPU.
  public var usesGPU: Bool { gpuLayers > 0 }

  public var description: String {
    guard usesGPU else { return "CPU: \(totalLayers) layers (\(reason))" }
    return "\(device.name) \(device.description): \(gpuLayers)/\(totalLayers) layers, "
      + "\(ComputeDevice.gibibytes(requiredBytes)) of \(ComputeDevice.gibibytes(device.freeMemory)) free (\(reason))"
  }
}
