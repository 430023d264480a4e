/// Exact grammars for the decimal numbers between two bounds, such as `0 <= x <= 1` or
/// `-2.5 < x < 0.75`.
///
/// Bounded numbers are written without an exponent and with at most 15 significant digits
/// (counting every digit of the integer part and of the fraction). Within 15 digits two different
/// decimals are always different `Double`s, so a number the grammar allows is inside the bounds
/// also after a JSON parser rounds it (strict bounds included). The grammar is a digit automaton:
/// integer parts strictly between the bounds take any fraction, and the bounds' own integer parts
/// constrain the fraction digit by digit.
enum NumberRangeGrammar {
  /// Significant digits of a generated number.
  static let significantDigits = 15

  /// A bound on the value.
  struct Bound {
    var value: Double
    var exclusive: Bool
  }

  /// The numbers between the bounds (`nil`: unbounded on that side, up to 15 integer digits).
  /// The bounds must be finite, inside ±10^15 or vacuous, and in order.
  static func numbers(above lower: Bound?, below upper: Bound?) -> GrammarExpression {
    let limit = Double(IntegerRangeGrammar.limit) + 1
    let lower = lower.flatMap { $0.value <= -limit ? nil : $0 }
    let upper = upper.flatMap { $0.value >= limit ? nil : $0 }
    var alternatives: [GrammarExpression] = []
    let hasNonNegative = upper.map { $0.value > 0 || ($0.value == 0 && !$0.exclusive) } ?? true
    if hasNonNegative {
      let low = lower.flatMap { $0.value < 0 ? nil : $0 }.map { Magnitude($0.value, exclusive: $0.exclusive) }
        ?? Magnitude(0, exclusive: false)
      alternatives.append(magnitudes(from: low, to: upper.map { Magnitude($0.value, exclusive: $0.exclusive) }))
    }
    let hasNegative = lower.map { $0.value < 0 } ?? true
    if hasNegative {
      let low = upper.flatMap { $0.value >= 0 ? nil : $0 }.map { Magnitude(-$0.value, exclusive: $0.exclusive) }
        ?? Magnitude(0, exclusive: true)
      let high = lower.map { Magnitude(-$0.value, exclusive: $0.exclusive) }
      alternatives.append(.sequence(.literal("-"), magnitudes(from: low, to: high)))
    }
    return .choice(alternatives)
  }

  /// A non-negative bound as exact decimal digits.
  struct Magnitude {
    var integer: Int64
    /// Fraction digits without trailing zeros.
    var fraction: [UInt8]
    var exclusive: Bool

    init(_ value: Double, exclusive: Bool) {
      (integer, fraction) = Self.decimal(value)
      self.exclusive = exclusive
    }

    /// The exact digits of the shortest text that reads back as `value` (`value >= 0`).
    private static func decimal(_ value: Double) -> (Int64, [UInt8]) {
      let text = "\(value.magnitude)".lowercased()
      let parts = text.split(separator: "e", maxSplits: 1)
      let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
      let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
      var digits = Array(mantissa[0].utf8.map { $0 - 48 })
      let fractionDigits = mantissa.count == 2 ? Array(mantissa[1].utf8.map { $0 - 48 }) : []
      var point = digits.count + exponent
      digits += fractionDigits
      if point < 0 {
        digits = [UInt8](repeating: 0, count: -point) + digits
        point = 0
      }
      if point > digits.count { digits += [UInt8](repeating: 0, count: point - digits.count) }
      let integer = digits[..<point].reduce(Int64(0)) { $0 * 10 + Int64($1) }
      var fraction = Array(digits[point...])
      while fraction.last == 0 { fraction.removeLast() }
      return (integer, fraction)
    }
  }

  /// Non-negative numbers between the magnitudes (`upper == nil`: up to the 15-digit limit).
  private static func magnitudes(from lower: Magnitude, to upper: Magnitude?) -> GrammarExpression {
    let lowInteger = lower.integer
    let highInteger = upper?.integer ?? IntegerRangeGrammar.limit
    guard lowInteger <= highInteger else { return .nothing }
    let lowFraction = FractionBound.lower(lower.fraction, strict: lower.exclusive)
    let highFraction = upper.map { FractionBound.upper($0.fraction, strict: $0.exclusive) }
    func budget(_ integer: Int64) -> Int {
      integer == 0 ? significantDigits : significantDigits - IntegerRangeGrammar.digitCount(integer)
    }
    func literal(_ integer: Int64) -> GrammarExpression { .literal(String(integer)) }
    if lowInteger == highInteger {
      return .sequence(literal(lowInteger), fraction(lowFraction, highFraction, budget: budget(lowInteger)))
    }
    var alternatives = [GrammarExpression.sequence(literal(lowInteger), fraction(lowFraction, nil, budget: budget(lowInteger)))]
    if lowInteger + 1 <= highInteger - 1 {
      for group in IntegerRangeGrammar.magnitudes(from: lowInteger + 1, to: highInteger - 1) {
        alternatives.append(.sequence(group.expression, fraction(nil, nil, budget: significantDigits - group.digits)))
      }
    }
    alternatives.append(.sequence(literal(highInteger), fraction(nil, highFraction, budget: budget(highInteger))))
    return .choice(alternatives)
  }

  /// A constraint on the fraction digits that are still to come, compared as `0.digits`.
  enum FractionBound: Hashable {
    /// `0.rest >= 0.digits` (`> ` when strict).
    case atLeast([UInt8], strict: Bool)
    /// `0.rest <= 0.digits` (`<` when strict).
    case atMost([UInt8], strict: Bool)

    /// A lower bound, or `nil` when every fraction satisfies it.
    static func lower(_ digits: [UInt8], strict: Bool) -> FractionBound? {
      digits.isEmpty && !strict ? nil : .atLeast(digits, strict: strict)
    }

    static func upper(_ digits: [UInt8], strict: Bool) -> FractionBound {
      .atMost(digits, strict: strict)
    }

    /// Whether the fraction may end here (the remaining value is 0).
    var allowsEnd: Bool {
      switch self {
      case .atLeast: false  // normalised: a lower bound left over still needs digits
      case .atMost(let digits, let strict): !strict || digits.contains { $0 != 0 }
      }
    }

    /// After the next digit is `digit`: `.some(nil)` satisfied, `.some(bound)` still
    /// constrained, `nil` violated.
    func after(_ digit: UInt8) -> FractionBound?? {
      switch self {
      case .atLeast(let digits, let strict):
        let first = digits.first ?? 0
        if digit > first { return .some(nil) }
        if digit < first { return nil }
        return .some(.lower(Array(digits.dropFirst()), strict: strict))
      case .atMost(let digits, let strict):
        let first = digits.first ?? 0
        if digit < first { return .some(nil) }
        if digit > first { return nil }
        return .some(.upper(Array(digits.dropFirst()), strict: strict))
      }
    }
  }

  /// The optional `.digits` part under both constraints, with at most `budget` digits.
  private static func fraction(_ lower: FractionBound?, _ upper: FractionBound?, budget: Int) -> GrammarExpression {
    let digits = fractionDigits(lower, upper, budget: budget)
    return .choice(digits.allowsEnd ? .empty : .nothing, .sequence(.literal("."), digits.nonEmpty))
  }

  /// Digit strings satisfying both constraints: whether the empty string does, and the
  /// non-empty ones.
  private static func fractionDigits(
    _ lower: FractionBound?, _ upper: FractionBound?, budget: Int
  ) -> (allowsEnd: Bool, nonEmpty: GrammarExpression) {
    let allowsEnd = (lower?.allowsEnd ?? true) && (upper?.allowsEnd ?? true)
    guard budget > 0 else { return (allowsEnd, .nothing) }
    if lower == nil, upper == nil {
      return (true, .repeated(.range("0", "9"), min: 1, max: budget))
    }
    if lower == nil, upper == .atMost([], strict: false) {
      return (true, .repeated(.literal("0"), min: 1, max: budget))  // the bound itself: only zeros
    }
    struct Outcome: Hashable { var lower: FractionBound?; var upper: FractionBound? }
    var groups: [(outcome: Outcome, digits: [UInt8])] = []
    for digit in UInt8(0)...UInt8(9) {
      var outcome = Outcome()
      if let lower {
        guard let next = lower.after(digit) else { continue }
        outcome.lower = next
      }
      if let upper {
        guard let next = upper.after(digit) else { continue }
        outcome.upper = next
      }
      if let index = groups.firstIndex(where: { $0.outcome == outcome }) {
        groups[index].digits.append(digit)
      } else {
        groups.append((outcome, [digit]))
      }
    }
    var alternatives: [GrammarExpression] = []
    for group in groups {
      let rest = fractionDigits(group.outcome.lower, group.outcome.upper, budget: budget - 1)
      let digitSet = GrammarExpression.choice([.characters(CodePointSet(ranges: group.digits.map { UInt32($0) + 48...UInt32($0) + 48 }))])
      alternatives.append(.sequence(digitSet, .choice(rest.allowsEnd ? .empty : .nothing, rest.nonEmpty)))
    }
    return (allowsEnd, .choice(alternatives))
  }
}
