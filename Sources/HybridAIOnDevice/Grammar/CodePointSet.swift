/// A set of Unicode code points, kept as sorted, disjoint, non-adjacent closed ranges.
///
/// The grammar compiler uses it for regular-expression character classes and for the characters a
/// JSON string may hold without escaping.
struct CodePointSet: Hashable, Sendable {
  /// The largest Unicode code point.
  static let maximum: UInt32 = 0x10FFFF

  /// Every code point.
  static let all = CodePointSet(ranges: [0...maximum])

  /// The ranges, sorted, disjoint and never touching.
  private(set) var ranges: [ClosedRange<UInt32>]

  /// The set of the code points in `ranges` (in any order; overlaps are merged).
  init(ranges: [ClosedRange<UInt32>] = []) {
    self.ranges = Self.normalised(ranges)
  }

  /// The set of the given characters.
  init(_ scalars: [Unicode.Scalar]) {
    self.init(ranges: scalars.map { $0.value...$0.value })
  }

  /// The set of the characters of `characters`, e.g. `"0123456789"`.
  init(characters: String) {
    self.init(Array(characters.unicodeScalars))
  }

  var isEmpty: Bool { ranges.isEmpty }

  /// The number of code points in the set.
  var count: Int { ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }

  func contains(_ value: UInt32) -> Bool {
    var low = 0
    var high = ranges.count - 1
    while low <= high {
      let middle = (low + high) / 2
      if ranges[middle].upperBound < value {
        low = middle + 1
      } else if ranges[middle].lowerBound > value {
        high = middle - 1
      } else {
        return true
      }
    }
    return false
  }

  /// The code points in either set.
  func union(_ other: CodePointSet) -> CodePointSet {
    CodePointSet(ranges: ranges + other.ranges)
  }

  /// The code points, up to ``maximum``, that are not in this set.
  var inverted: CodePointSet {
    var result: [ClosedRange<UInt32>] = []
    var next: UInt32 = 0
    for range in ranges {
      if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
      if range.upperBound == Self.maximum { return CodePointSet(ranges: result) }
      next = range.upperBound + 1
    }
    result.append(next...Self.maximum)
    return CodePointSet(ranges: result)
  }

  /// The code points in both sets.
  func intersection(_ other: CodePointSet) -> CodePointSet {
    inverted.union(other.inverted).inverted
  }

  /// The code points of this set that are not in `other`.
  func subtracting(_ other: CodePointSet) -> CodePointSet {
    intersection(other.inverted)
  }

  /// Each code point of the set; only for small sets.
  var members: [UInt32] {
    ranges.flatMap { Array($0) }
  }

  private static func normalised(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
    let sorted = ranges.map { min($0.lowerBound, maximum)...min($0.upperBound, maximum) }
      .sorted { $0.lowerBound < $1.lowerBound }
    var merged: [ClosedRange<UInt32>] = []
    for range in sorted {
      if let last = merged.last, range.lowerBound <= last.upperBound &+ 1, last.upperBound != UInt32.max {
        merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    return merged
  }
}
