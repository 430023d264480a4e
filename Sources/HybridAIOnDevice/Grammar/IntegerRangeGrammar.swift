/// Exact grammars for the decimal text of the integers in a range.
///
/// Integers are written as JSON writes them: an optional `-`, no leading zeros, no `-0`. Their
/// magnitude is limited to ``limit`` (15 digits), below which every integer is exact as a
/// `Double`; a range that reaches past it is cut there, which only narrows the grammar.
enum IntegerRangeGrammar {
  /// The largest magnitude generated: 999 999 999 999 999.
  static let limit: Int64 = 999_999_999_999_999
  static let limitDigits = 15

  /// The integers in `lower...upper` (`nil`: up to the limit on that side).
  static func integers(from lower: Int64?, to upper: Int64?) -> GrammarExpression {
    let low = max(lower ?? -limit, -limit)
    let high = min(upper ?? limit, limit)
    guard low <= high else { return .nothing }
    var alternatives: [GrammarExpression] = []
    if high >= 0 {
      alternatives.append(merged(magnitudes(from: max(low, 0), to: high)))
    }
    if low < 0 {
      alternatives.append(.sequence(.literal("-"), merged(magnitudes(from: max(1, -high), to: -low))))
    }
    return .choice(alternatives)
  }

  /// The digit strings of `low...high` (`0 <= low <= high <= limit`), one expression per digit
  /// count.
  static func magnitudes(from low: Int64, to high: Int64) -> [(digits: Int, expression: GrammarExpression)] {
    guard low <= high else { return [] }
    var groups: [(digits: Int, expression: GrammarExpression)] = []
    for length in digitCount(low)...digitCount(high) {
      let first = length == 1 ? 0 : power(length - 1)
      let last = power(length) - 1
      let from = max(low, first)
      let to = min(high, last)
      guard from <= to else { continue }
      groups.append((length, sameLength(digits(of: from), digits(of: to))))
    }
    return groups
  }

  /// The number of decimal digits of `value` (`0` has one).
  static func digitCount(_ value: Int64) -> Int {
    String(value.magnitude).count
  }

  static func power(_ exponent: Int) -> Int64 {
    (0..<exponent).reduce(Int64(1)) { value, _ in value * 10 }
  }

  /// One alternative per digit count, with runs of complete lengths (every number of that many
  /// digits) folded into a single `[1-9][0-9]{m,n}`.
  private static func merged(_ groups: [(digits: Int, expression: GrammarExpression)]) -> GrammarExpression {
    var alternatives: [GrammarExpression] = []
    var run: (first: Int, last: Int)?
    func flush() {
      guard let current = run else { return }
      alternatives.append(.sequence(.range("1", "9"), .repeated(.range("0", "9"), min: current.first - 1, max: current.last - 1)))
      run = nil
    }
    for group in groups {
      let complete = group.expression == .sequence(
        .range("1", "9"), .repeated(.range("0", "9"), min: group.digits - 1, max: group.digits - 1))
      if complete {
        if let current = run, current.last == group.digits - 1 {
          run = (current.first, group.digits)
        } else {
          flush()
          run = (group.digits, group.digits)
        }
      } else {
        flush()
        alternatives.append(group.expression)
      }
    }
    flush()
    return .choice(alternatives)
  }

  private static func digits(of value: Int64) -> [UInt8] {
    String(value).utf8.map { $0 - 48 }
  }

  /// Digit strings of one length from `low` to `high` (same length, `low <= high`).
  private static func sameLength(_ low: [UInt8], _ high: [UInt8]) -> GrammarExpression {
    guard let lowFirst = low.first, let highFirst = high.first else { return .empty }
    if low == high { return .literal(String(decoding: low.map { $0 + 48 }, as: UTF8.self)) }
    let lowRest = Array(low.dropFirst())
    let highRest = Array(high.dropFirst())
    if lowFirst == highFirst {
      return .sequence(digit(lowFirst...lowFirst), sameLength(lowRest, highRest))
    }
    let rest = low.count - 1
    let lowRestIsZeros = lowRest.allSatisfy { $0 == 0 }
    let highRestIsNines = highRest.allSatisfy { $0 == 9 }
    var alternatives: [GrammarExpression] = []
    if !lowRestIsZeros {
      alternatives.append(.sequence(digit(lowFirst...lowFirst), sameLength(lowRest, [UInt8](repeating: 9, count: rest))))
    }
    let middleFirst = lowRestIsZeros ? lowFirst : lowFirst + 1
    let middleLast = highRestIsNines ? highFirst : highFirst - 1
    if middleFirst <= middleLast {
      alternatives.append(.sequence(digit(middleFirst...middleLast), .repeated(.range("0", "9"), min: rest, max: rest)))
    }
    if !highRestIsNines {
      alternatives.append(.sequence(digit(highFirst...highFirst), sameLength([UInt8](repeating: 0, count: rest), highRest)))
    }
    return .choice(alternatives)
  }

  private static func digit(_ range: ClosedRange<UInt8>) -> GrammarExpression {
    range.count == 1
      ? .literal(String(range.lowerBound))
      : .characters(CodePointSet(ranges: [UInt32(range.lowerBound) + 48...UInt32(range.upperBound) + 48]))
  }
}
