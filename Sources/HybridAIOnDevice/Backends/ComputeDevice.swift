/// A device llama.cpp can compute on: the CPU, or a GPU from a backend loaded at run time
/// (CUDA, Vulkan, …; see ``ComputeBackends``).
public struct ComputeDevice: Sendable, Hashable, CustomStringConvertible {
  /// What kind of device it is.
  public enum Kind: String, Sendable, Hashable {
    /// The CPU, using system memory.
    case cpu
    /// A GPU with its own memory.
    case gpu
    /// A GPU that shares system memory.
    case integratedGPU
    /// An accelerator used together with the CPU (BLAS, AMX).
    case accelerator
  }

  /// llama.cpp's name for the device, e.g. `CPU` or `CUDA0`; what `--device` takes.
  public let name: String
  /// What the driver calls it, e.g. `NVIDIA H100 80GB HBM3`.
  public let description: String
  /// The backend that provides it, e.g. `CPU` or `CUDA`.
  public let backend: String
  public let kind: Kind
  /// Memory free now, in bytes (system memory for the CPU).
  public let freeMemory: UInt64
  /// All its memory, in bytes.
  public let totalMemory: UInt64

  public init(name: String, description: String, backend: String, kind: Kind, freeMemory: UInt64, totalMemory: UInt64) {
    self.name = name
    self.description = description
    self.backend = backend
    self.kind = kind
    self.freeMemory = freeMemory
    self.totalMemory = totalMemory
  }

  /// Whether model layers can be offloaded to it (a GPU, discrete or integrated).
  public var isGPU: Bool { kind == .gpu || kind == .integratedGPU }
}
