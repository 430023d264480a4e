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

  /// "78.7 GiB free of 79.2 GiB", or "memory unknown".
  public var memoryDescription: String {
    guard totalMemory > 0 else { return "memory unknown" }
    return "\(Self.gibibytes(freeMemory)) free of \(Self.gibibytes(totalMemory))"
  }

  /// "1.0 GiB" (or "12 MiB" below 0.05 GiB).
  static func gibibytes(_ bytes: UInt64) -> String {
    let value = Double(bytes) / Double(1 << 30)
    return value < 0.05 && bytes > 0 ? "\(bytes >> 20) MiB" : "\((value * 10).rounded() / 10) GiB"
  }

  /// The loaded CPU device, or a stand-in when no backend reported one.
  static var cpu: ComputeDevice {
    ComputeBackends.devices.first { $0.kind == .cpu }
      ?? ComputeDevice(name: "CPU", description: "CPU", backend: "CPU", kind: .cpu, freeMemory: 0, totalMemory: 0)
  }
}
