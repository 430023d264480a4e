import ArgumentParser
import HybridAIOnDevice

/// `--gpu-layers` and `--device`: where the on-device model's layers run. Shared by `generate`,
/// `chat`, `serve` and `bench`.
public struct OffloadOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: ArgumentHelp(
    "Model layers on the GPU: auto (all that fit on the first GPU, else the CPU), 0 (CPU only) or a count.",
    valueName: "auto|N|0"))
  public var gpuLayers: GPULayers = .automatic

  @Option(name: .long, help: "Compute device for offloaded layers, by llama.cpp's name (CUDA0, Vulkan0, CPU); default: the first GPU.")
  public var device: String?

  public init() {}

  public func validate() throws {
    if let device, device.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--device needs a device name such as CUDA0")
    }
  }
}

extension GPULayers: ExpressibleByArgument {
  public init?(argument: String) {
    guard let parsed = try? GPULayers(parsing: argument) else { return nil }
    self = parsed
  }

  public var defaultValueDescription: String { description }
}
