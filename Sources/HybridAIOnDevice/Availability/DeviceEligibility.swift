import CLlama
import Foundation

/// Whether this machine can run a llama.cpp model: a CPU backend for this CPU was loaded (each
/// backend library reports whether this CPU has the instruction-set extensions it was built for),
/// and there is enough memory.
enum DeviceEligibility {
  /// Why this CPU cannot run the runtime, or `nil` when it can. Computed once.
  static let cpuProblem: String? = {
    #if arch(x86_64) || arch(arm64)
    guard ComputeBackends.devices.contains(where: { $0.kind == .cpu }) else {
      let folders = ComputeBackends.folders.joined(separator: ", ")
      let skipped = ComputeBackends.skippedLibraries.map(\.description).joined(separator: "; ")
      return "no llama.cpp CPU backend for this CPU was found in \(folders)" + (skipped.isEmpty ? "" : " (skipped: \(skipped))")
    }
    return nil
    #else
    return "llama.cpp is only supported on x86_64 and arm64 here"
    #endif
  }()

  /// Physical memory available to this process: RAM, or the cgroup limit when lower.
  static let memoryLimit: UInt64 = {
    var limit = ProcessInfo.processInfo.physicalMemory
    for file in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
      if let text = try? String(contentsOfFile: file, encoding: .utf8),
         let value = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 {
        limit = min(limit, value)
      }
    }
    return limit
  }()

  /// Why a model of `modelFileSize` bytes with a `contextSize`-token KV cache does not fit in
  /// `memoryLimit`, or `nil` when it fits. The estimate is deliberately rough and generous.
  static func memoryProblem(modelFileSize: UInt64, contextSize: Int, memoryLimit: UInt64 = memoryLimit) -> String? {
    let needed = modelFileSize + modelFileSize / 5 + UInt64(contextSize) * 64 * 1024 + 64 << 20
    guard needed > memoryLimit else { return nil }
    return "the model needs about \(needed >> 20) MiB, this device allows \(memoryLimit >> 20) MiB"
  }
}
