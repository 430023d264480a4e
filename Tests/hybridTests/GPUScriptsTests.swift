import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// The GPU scripts on a machine without a GPU: they say what is missing instead of failing obscurely.
@Suite("GPU scripts without a GPU")
struct GPUScriptsTests {
  /// Runs a repository script with a PATH that has no CUDA toolkit on it.
  func runScript(_ name: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
    try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                               ["PATH=/usr/bin:/bin", TestRepository.file("scripts/\(name)").path] + arguments,
                               mergingStandardError: true)
  }

  @Test("build-backend cuda without nvcc: exit 1 and a message that names nvcc")
  func buildBackendWithoutNVCC() async throws {
    try #require(!FileManager.default.fileExists(atPath: "/usr/local/cuda/bin/nvcc"), "this machine has a CUDA toolkit")
    let outcome = try await runScript("build-backend", ["cuda"])
    #expect(outcome.status == 1)
    #expect(outcome.output.contains("nvcc was not found"), "\(outcome.output)")
  }

  @Test("build-backend with no or an unknown backend: exit 2 and the names it takes")
  func buildBackendUsage() async throws {
    let none = try await runScript("build-backend", [])
    #expect(none.status == 2 && none.output.contains("cuda, vulkan or cpu"), "\(none.output)")
    let unknown = try await runScript("build-backend", ["metal"])
    #expect(unknown.status == 2 && unknown.output.contains("unknown argument 'metal'"), "\(unknown.output)")
  }

  @Test("gpu-check where no NVIDIA device is visible: says it skipped, exit 0",
        .enabled(if: !["/usr/bin/nvidia-smi", "/bin/nvidia-smi"].contains { FileManager.default.fileExists(atPath: $0) },
                 "a GPU machine runs the real scenarios: scripts/gpu-check"))
  func gpuCheckSkips() async throws {
    let outcome = try await runScript("gpu-check", [])
    #expect(outcome.status == 0)
    #expect(outcome.output.contains("skipped"), "\(outcome.output)")
  }
}
