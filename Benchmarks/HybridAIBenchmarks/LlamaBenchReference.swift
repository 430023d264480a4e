import Foundation

/// Runs llama.cpp's own `llama-bench` (built by `scripts/bootstrap --bench` from the same pinned
/// source) and reads its JSON output.
struct LlamaBenchReference: Sendable {
  struct Result {
    var promptTokensPerSecond: Double
    var generationTokensPerSecond: Double
  }

  let executable: String

  func run(model: String, promptTokens: Int, generatedTokens: Int, threads: Int, repetitions: Int) async throws -> Result {
    let data = try await ReferenceProcess.run(executable, [
      "-m", model, "-p", "\(promptTokens)", "-n", "\(generatedTokens)", "-t", "\(threads)",
      "-r", "\(repetitions)", "-b", "512", "-ub", "512", "-o", "json"])

    struct Entry: Decodable {
      let n_prompt: Int
      let n_gen: Int
      let avg_ts: Double
    }
    let entries = try JSONDecoder().decode([Entry].self, from: data)
    guard let prompt = entries.first(where: { $0.n_prompt > 0 && $0.n_gen == 0 }),
          let generation = entries.first(where: { $0.n_gen > 0 && $0.n_prompt == 0 })
    else { throw BenchmarkError.referenceFailed("unexpected output") }
    return Result(promptTokensPerSecond: prompt.avg_ts, generationTokensPerSecond: generation.avg_ts)
  }
}
