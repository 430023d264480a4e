import CLlama
import Foundation

/// Randomly sampled tokens of a wide step, chosen side by side: each row of logits by its own
/// request's sampler chain, the rows spread over several threads.
///
/// A sampler chain costs a pass over the vocabulary a row: ~0.37 ms for SmolLM2's 49,152 tokens with
/// the default chain (top-k 64, then top-p) on this project's 2-core VM, ~1.3–1.5 ms for a top-p cut
/// over the whole vocabulary, which turns every token into a probability. One thread sampling 64
/// rows would take several times a GPU's whole step, so the rows go to the threads; the chains are
/// independent, so the tokens are the ones sequential sampling picks.
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
