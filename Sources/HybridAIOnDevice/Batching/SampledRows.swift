import CLlama
import Foundation

/// Randomly sampled tokens of a wide step, chosen side by side: each row of logits by its own
/// request's sampler chain, the rows spread over several threads.
///
/// A sampler chain that truncates by probability (top-p, HybridAI's default) first turns the whole
/// vocabulary into probabilities: ~1.5 ms a row for SmolLM2's 49,152 tokens on this project's 2-core
/// VM (top-k alone ~0.1 ms). One thread sampling 64 such rows would take several times a GPU's
/// whole step, so the rows go to ``threads`` workers; the chains are independent, so the tokens are
/// the ones sequential sampling picks.
enum SampledRows {
  /// The fewest rows worth waking other threads for.
  static let parallelRows = 2

  /// The choice of `samplers[i]` from `rows[i]` (not accepted) for every row.
  static func choices(ofRows rows: [UnsafePointer<Float>], samplers: [LlamaSampler], threads: Int) -> [llama_token] {
    precondition(rows.count == samplers.count)
    var tokens = [llama_token](repeating: 0, count: rows.count)
    let workers = min(rows.count, max(1, threads))
    tokens.withUnsafeMutableBufferPointer { results in
      let work = RowSampling(rows: rows, samplers: samplers, results: results)
      guard rows.count >= parallelRows, workers > 1 else { return (0..<rows.count).forEach(work.run) }
      // Worker w takes rows w, w + workers, …: distinct samplers and result slots for each thread.
      DispatchQueue.concurrentPerform(iterations: workers) { worker in
        for row in stride(from: worker, to: work.rows.count, by: workers) { work.run(row) }
      }
    }
    return tokens
  }

  /// The rows, their samplers and the results of one ``choices(ofRows:samplers:threads:)`` call.
  /// `@unchecked Sendable`: the rows are only read, each row's sampler (its chain, random state
  /// and candidate array) and result slot are touched by the one worker that takes the row, and
  /// `concurrentPerform` returns only when every worker has finished.
  private struct RowSampling: @unchecked Sendable {
    let rows: [UnsafePointer<Float>]
    let samplers: [LlamaSampler]
    let results: UnsafeMutableBufferPointer<llama_token>

    func run(_ row: Int) {
      results[row] = samplers[row].choice(fromRow: rows[row])
    }
  }
}
