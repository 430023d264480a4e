@testable import HybridAIOnDevice
import Testing

/// The greedy choice's blocked scan against the obvious one: the first position of the largest
/// value, over sizes around the lane and block boundaries, ties, infinities and NaNs.
@Suite("Largest logit: the greedy choice")
struct LargestLogitTests {
  /// The obvious scan: the first index whose value is larger than every other (NaNs never win).
  static func reference(_ values: [Float]) -> Int {
    var best = 0
    var bestValue = -Float.infinity
    for (index, value) in values.enumerated() where value > bestValue {
      best = index
      bestValue = value
    }
    return best
  }

  static func index(_ values: [Float]) -> Int {
    values.withUnsafeBufferPointer { LargestLogit.index(in: $0) }
  }

  @Test("scrambled logits of every awkward size: the same index as a plain scan", arguments: [
    1, 2, 7, 8, 9, 15, 16, 17, 511, 512, 513, 1_024, 1_031, 49_152,
  ])
  func matchesPlainScan(count: Int) {
    for round in 0..<20 {
      // A multiplicative hash of the position, 4,001 levels: every order, and ties now and then.
      // (Typed step by step: as one expression this took the compiler 4 s to type-check.)
      let values: [Float] = (0..<count).map { (index: Int) -> Float in
        let level: UInt64 = (UInt64(index + 1) &* 2_654_435_761 &+ UInt64(round) &* 40_503) % 4_001
        return Float(Int(level) - 2_000) / 8
      }
      #expect(Self.index(values) == Self.reference(values), "round \(round)")
    }
  }

  @Test("ties go to the first position, also across blocks and lanes")
  func tiesGoFirst() {
    var values = [Float](repeating: 0, count: 2_000)
    for position in [1_999, 1_500, 513, 511, 9, 3] {
      values[position] = 5
      #expect(Self.index(values) == position, "the largest value first at \(position)")
    }
    #expect(Self.index([Float](repeating: 1, count: 700)) == 0)
  }

  @Test("NaNs are never chosen; nothing but NaNs and negative infinities gives 0; empty gives 0")
  func specialValues() {
    var values = [Float](repeating: -.infinity, count: 600)
    #expect(Self.index(values) == 0)
    values[0] = .nan
    values[577] = -3
    #expect(Self.index(values) == 577)
    values[100] = .infinity
    #expect(Self.index(values) == 100)
    #expect(Self.index([Float](repeating: .nan, count: 40)) == 0)
    #expect(Self.index([]) == 0)
  }

  @Test("many rows at once, on one thread or several: each row's own index", arguments: [1, 2, 5])
  func rowsOnThreads(threads: Int) {
    let rowLength = 1_031
    for rowCount in [1, LargestLogit.parallelRows - 1, LargestLogit.parallelRows, 64] {
      // Each row a different scramble; every fifth row a tie at its two largest positions.
      let rows: [[Float]] = (0..<rowCount).map { (row: Int) -> [Float] in
        var values: [Float] = (0..<rowLength).map { (index: Int) -> Float in
          let level: UInt64 = (UInt64(index + 1) &* 2_654_435_761 &+ UInt64(row) &* 97_531) % 3_001
          return Float(Int(level) - 1_500)
        }
        if row % 5 == 0 { values[rowLength - 1] = 2_000; values[row % rowLength] = 2_000 }
        return values
      }
      let storage = UnsafeMutableBufferPointer<Float>.allocate(capacity: rowCount * rowLength)
      defer { storage.deallocate() }
      for (row, values) in rows.enumerated() {
        _ = UnsafeMutableBufferPointer(rebasing: storage[(row * rowLength)...]).initialize(from: values)
      }
      let pointers = (0..<rowCount).map { UnsafePointer(storage.baseAddress! + $0 * rowLength) }
      let found = LargestLogit.indices(ofRows: pointers, rowLength: rowLength, threads: threads)
      #expect(found == rows.map(Self.reference), "\(rowCount) rows on \(threads) threads")
    }
  }
}
