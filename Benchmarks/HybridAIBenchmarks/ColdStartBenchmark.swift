import Foundation
import HybridAIProcess

/// The first request's time to first token right after a server says it is ready, against its
/// steady-state TTFT: `hybrid serve` warms its models before it listens (target: ≤ 1.2×), shown
/// beside `llama-server`'s own ratio.
///
/// `hybrid serve` runs with `--no-prompt-cache`, so the steady requests evaluate their whole prompt
/// as the first one does and the ratio shows start-up costs alone.
struct ColdStartBenchmark: Sendable {
  let benchmark: ServingBenchmark
  let progress: @Sendable (String) -> Void
  var settings: ServingBenchmark.Settings { benchmark.settings }
  /// Requests after the first whose TTFT median is the steady state.
  var steadyRequests = 6

  func run() async throws -> [BenchmarkReport.Row] {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-cold-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    progress("cold start: hybrid serve --no-prompt-cache, then llama-server; first request right after each is ready")
    let hybrid = try await ServerProcess(executable: settings.hybridExecutable, arguments: [
      "--model", "bench=\(settings.modelPath)", "--max-concurrent-requests", "1", "--no-prompt-cache",
      "--context-size", "\(settings.contextPerSlot)", "--threads", "\(settings.threads)", "--data", data.path,
      "--log-level", "error"] + benchmark.offloadArguments)
    let oursTTFT = try await measure(OpenAIStreamLoad(apiRoot: hybrid.baseURL.appendingPathComponent("v1beta/openai"),
                                                      model: "bench", outputTokens: 4)) { await hybrid.stop() }
    let llama = try await LlamaServerReference(executable: settings.llamaServerPath)
      .start(model: settings.modelPath, threads: settings.threads, slots: 1, contextPerSlot: settings.contextPerSlot,
             offload: ReferenceOffload(try benchmark.placement(slots: 1)))
    let theirTTFT = try await measure(OpenAIStreamLoad(apiRoot: llama.apiRoot, model: "bench", outputTokens: 4)) {
      await llama.stop()
    }
    return [
      .init(metric: "first-request TTFT (ms) ÷ steady TTFT (ms), hybrid serve", ours: oursTTFT.first,
            reference: oursTTFT.steady, target: .atMost(1.2)),
      .init(metric: "first-request TTFT (ms) ÷ steady TTFT (ms), llama-server", ours: theirTTFT.first,
            reference: theirTTFT.steady, target: .informational),
    ]
  }

  /// ``measure(_:)``, then `stop` (the server) and the load's client shut down, on success and failure.
  private func measure(_ load: OpenAIStreamLoad, thenStop stop: () async -> Void) async throws
    -> (first: Double, steady: Double) {
    let result: Result<(first: Double, steady: Double), any Error>
    do { result = .success(try await measure(load)) } catch { result = .failure(error) }
    await stop()
    await load.shutdown()
    return try result.get()
  }

  /// The first request's TTFT and the median of the next ones', in milliseconds; each request asks
  /// something new, so a server's prompt cache holds only the shared template prefix.
  private func measure(_ load: OpenAIStreamLoad) async throws -> (first: Double, steady: Double) {
    let first = try await load.send(prompt: "Name a colour.")
    var steady: [Double] = []
    for index in 1...steadyRequests {
      steady += try await load.send(prompt: "Name a colour, number \(index).").timesToFirstToken
    }
    guard let cold = first.timesToFirstToken.first, !steady.isEmpty else {
      throw BenchmarkError.measurementFailed("no time to first token was measured")
    }
    return (cold, steady.percentile(0.5))
  }
}
