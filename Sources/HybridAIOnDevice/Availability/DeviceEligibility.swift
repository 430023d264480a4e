import CLlama
import Foundation

/// Whether this machine can run a llama.cpp model: the CPU has the instruction-set extensions the
/// library was compiled for (bootstrap builds with native flags), and there is enough memory.
enum DeviceEligibility {
  /// Why this CPU cannot run the compiled runtime, or `nil` when it can. Computed once.
  static let cpuProblem: String? = {
    #if arch(x86_64)
    guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flagsLine = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
    else { return nil }   // cannot tell: assume it runs
    let flags = Set(flagsLine.split(separator: " ").map(String.init))
    let compiledFor: [(String, Int32)] = [
      ("avx", ggml_cpu_has_avx()), ("avx2", ggml_cpu_has_avx2()), ("fma", ggml_cpu_has_fma()),
      ("f16c", ggml_cpu_has_f16c()), ("avx512f", ggml_cpu_has_avx512()), ("bmi2", ggml_cpu_has_bmi2()),
    ]
    let missing = compiledFor.filter { $0.1 != 0 && !flags.contains($0.0) }.map(\.0)
    return missing.isEmpty ? nil : "the runtime was built for CPU features this CPU lacks: \(missing.joined(separator: ", "))"
    #elseif arch(arm64)
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
