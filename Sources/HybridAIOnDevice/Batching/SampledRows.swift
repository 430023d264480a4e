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

  /// The choice of `samplers[i]` from `rows[i]` (not accepted) for every row; each row's sampler
  /// (its chain, random state and candidate array) is used by the one worker that takes the row.
  static func choices(ofRows rows: [UnsafePointer<Float>], samplers: [LlamaSampler], threads: Int) -> [llama_token] {
    precondition(rows.count == samplers.count)
    return RowWorkers.map(rows: rows.count, threads: threads, minimumRows: parallelRows, initial: 0) {
      samplers[$0].choice(fromRow: rows[$0])
    }
  }
}
