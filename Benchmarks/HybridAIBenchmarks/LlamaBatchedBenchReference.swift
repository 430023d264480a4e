import Foundation

/// Runs llama.cpp's own `llama-batched-bench` (built by `scripts/bootstrap --bench`): decode speed
/// of N parallel sequences in one batch, the ceiling for our server's aggregate tokens/s.
struct LlamaBatchedBenchReference: Sendable {
  let executable: String

  /// Aggregate generation tokens/s for each parallel level.
  ///
  /// A level's line can go missing: the pinned llama.cpp's tools print through an asynchronous
  /// logger that is not flushed at exit (`common_log_main`, "logs may be lost"), so the last line
  /// is sometimes never written (seen in 3 of 16 runs with a tiny model). Missing levels run again,
  /// up to three attempts in all.
  func run(model: String, promptTokens: Int, generatedTokens: Int, parallel: [Int], threads: Int,
           offload: ReferenceOffload) async throws -> [Int: Double] {
    var rates: [Int: Double] = [:]
    for _ in 1...3 {
      let missing = parallel.filter { rates[$0] == nil }
      guard !missing.isEmpty else { break }
      rates.merge(try await runOnce(model: model, promptTokens: promptTokens, generatedTokens: generatedTokens,
                                    parallel: missing, threads: threads, offload: offload)) { first, _ in first }
    }
    guard !rates.isEmpty else { throw BenchmarkError.referenceFailed("llama-batched-bench printed no results") }
    return rates
  }

  private func runOnce(model: String, promptTokens: Int, generatedTokens: Int, parallel: [Int], threads: Int,
                       offload: ReferenceOffload) async throws -> [Int: Double] {
    let contextSize = (parallel.max() ?? 1) * (promptTokens + generatedTokens) + 64
    let data = try await ReferenceProcess.run(executable, [
      "-m", model, "-c", "\(contextSize)", "-b", "512", "-ub", "512", "-t", "\(threads)",
      "-npp", "\(promptTokens)", "-ntg", "\(generatedTokens)",
      "-npl", parallel.map(String.init).joined(separator: ","), "--output-format", "jsonl"] + offload.arguments,
      includeStandardError: true)

    struct Line: Decodable {
      let pl: Int
      let speed_tg: Double
    }
    var rates: [Int: Double] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("{") {
      if let entry = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) { rates[entry.pl] = entry.speed_tg }
    }
    return rates
  }
}
