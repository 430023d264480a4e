import Foundation

/// The greedy choice: the position of the largest logit, the first one on a tie.
///
/// A plain scan that remembers the best index is one compare-and-branch chain over the whole
/// vocabulary (SmolLM2: 49,152 logits, ~80–160 µs on the machines measured; at 64 streams on a GPU
/// with the CPU choosing the tokens, 5 ms a step). Here the vocabulary is taken in blocks: each
/// block's largest value comes from eight independent lanes (the compiler turns them into vector
/// max instructions), only a block that beats the best so far is remembered, and that one block
/// is searched for the first position holding the value — about 8× faster. NaNs are never chosen
/// (no comparison with one is true); with nothing but NaNs and negative infinities it answers 0.
enum LargestLogit {
  /// Logits per block: small enough that the final search is short, large enough that the
  /// per-block bookkeeping is noise.
  static let blockSize = 512

  /// The index of the first largest value of `logits`, or 0 when it is empty.
  static func index(in logits: UnsafeBufferPointer<Float>) -> Int {
    guard let base = logits.baseAddress else { return 0 }
    var largest = -Float.infinity, bestBlock = 0, start = 0
    while start < logits.count {
      let end = min(start + blockSize, logits.count)
      let candidate = largestValue(base, from: start, to: end)
      if candidate > largest {
        largest = candidate
        bestBlock = start
      }
      start = end
    }
    for index in bestBlock..<min(bestBlock + blockSize, logits.count) where base[index] == largest { return index }
    return 0
  }

  /// ``index(in:)`` of each row of `rowLength` logits, the rows scanned on several threads when
  /// there are at least ``parallelRows`` of them: a wide step's rows have just been copied from
  /// a GPU and are not in any cache, so one thread reads them at memory speed (measured on an H100
  /// host: 64 rows of 49,152 logits, ~0.9 ms a step on one thread).
  static func indices(ofRows rows: [UnsafePointer<Float>], rowLength: Int,
                      threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [Int] {
    RowWorkers.map(rows: rows.count, threads: threads, minimumRows: parallelRows, initial: 0) {
      index(in: UnsafeBufferPointer(start: rows[$0], count: rowLength))
    }
  }

  /// The fewest rows ``indices(ofRows:rowLength:threads:)`` spreads over threads: fewer cost less
  /// than waking them (8 rows of 49,152 take ~0.1 ms on one thread), and the CPU's own serving
  /// widths (up to 8 streams on a few cores) keep exactly the path they were measured with.
  static let parallelRows = 16

  /// The largest value of `values[start..<end]` (negative infinity when none is larger).
  @inline(__always)
  private static func largestValue(_ values: UnsafePointer<Float>, from start: Int, to end: Int) -> Float {
    var m0 = -Float.infinity, m1 = m0, m2 = m0, m3 = m0, m4 = m0, m5 = m0, m6 = m0, m7 = m0
    var index = start
    while index + 8 <= end {
      let x0 = values[index], x1 = values[index + 1], x2 = values[index + 2], x3 = values[index + 3]
      let x4 = values[index + 4], x5 = values[index + 5], x6 = values[index + 6], x7 = values[index + 7]
      m0 = x0 > m0 ? x0 : m0; m1 = x1 > m1 ? x1 : m1; m2 = x2 > m2 ? x2 : m2; m3 = x3 > m3 ? x3 : m3
      m4 = x4 > m4 ? x4 : m4; m5 = x5 > m5 ? x5 : m5; m6 = x6 > m6 ? x6 : m6; m7 = x7 > m7 ? x7 : m7
      index += 8
    }
    var largest = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
    while index < end {
      if values[index] > largest { largest = values[index] }
      index += 1
    }
    return largest
  }
}
