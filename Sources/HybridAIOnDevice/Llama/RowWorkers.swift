import Foundation

/// Work on the rows of a wide step's logits spread over several threads: row `r` goes to worker
/// `r % workers`, each worker writes only its rows' results, and the call returns when all are
/// done. Used for the greedy scan (``LargestLogit``) and for sampled rows (``SampledRows``).
enum RowWorkers {
  /// `body(row)` for every row of `0..<rows`, on `threads` workers when there are at least
  /// `minimumRows` rows (fewer cost less than waking threads), else in order on this thread.
  /// `body` must touch nothing that another row's call touches.
  static func map<Result>(rows: Int, threads: Int, minimumRows: Int, initial: Result,
                          _ body: (Int) -> Result) -> [Result] {
    var results = [Result](repeating: initial, count: rows)
    let workers = min(rows, max(1, threads))
    guard rows >= minimumRows, workers > 1 else {
      for row in 0..<rows { results[row] = body(row) }
      return results
    }
    results.withUnsafeMutableBufferPointer { buffer in
      withoutActuallyEscaping(body) { body in
        let work = Work(body: body, results: buffer)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
          for row in stride(from: worker, to: rows, by: workers) { work.run(row) }
        }
      }
    }
    return results
  }

  /// One ``map(rows:threads:minimumRows:initial:_:)`` call's work, for its workers.
  /// `@unchecked Sendable`: each worker calls `body` for its own rows and writes their slots only,
  /// and `concurrentPerform` returns when every worker has finished, within the buffer's lifetime.
  private struct Work<Result>: @unchecked Sendable {
    let body: (Int) -> Result
    let results: UnsafeMutableBufferPointer<Result>

    func run(_ row: Int) { results[row] = body(row) }
  }
}
