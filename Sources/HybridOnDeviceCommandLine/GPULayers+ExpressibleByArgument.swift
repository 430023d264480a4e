import ArgumentParser
import HybridAIOnDevice

/// `--gpu-layers auto|N|0` (``ModelOptions/gpuLayers``).
extension GPULayers: ExpressibleByArgument {
  public init?(argument: String) {
    guard let parsed = try? GPULayers(parsing: argument) else { return nil }
    self = parsed
  }

  public var defaultValueDescription: String { description }
}
