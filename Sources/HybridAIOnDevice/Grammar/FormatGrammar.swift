/// Grammars for the string formats that guided generation supports: `date`, `time`, `date-time`
/// (RFC 3339) and `uuid`.
///
/// Each grammar produces a subset of the format: dates are checked against the length of the
/// month (February 29th only in leap years), times use `Z` or a numeric offset and at most nine
/// fraction digits, and leap seconds are not generated.
enum FormatGrammar {
  /// The formats supported, by name.
  static let names = ["date", "time", "date-time", "uuid"]

  /// The string content (without quotes) for `format`, or `nil` when it is not supported.
  static func content(for format: String) -> GrammarExpression? {
    switch format {
    case "date": date
    case "time": time
    case "date-time": .sequence(date, .literal("T"), time)
    case "uuid": uuid
    default: nil
    }
  }

  private static let digit = GrammarExpression.range("0", "9")

  private static func digits(_ count: Int) -> GrammarExpression {
    .repeated(digit, min: count, max: count)
  }

  /// Two digits divisible by 4, `00` excluded.
  private static let multipleOfFour = GrammarExpression.choice(
    .sequence(.literal("0"), .oneOf("48")),
    .sequence(.oneOf("2468"), .oneOf("048")),
    .sequence(.oneOf("13579"), .oneOf("26")))

  static var date: GrammarExpression {
    let dayTo28 = GrammarExpression.choice(
      .sequence(.literal("0"), .range("1", "9")), .sequence(.literal("1"), digit), .sequence(.literal("2"), .range("0", "8")))
    let dayTo30 = GrammarExpression.choice(
      .sequence(.literal("0"), .range("1", "9")), .sequence(.oneOf("12"), digit), .literal("30"))
    let dayTo31 = GrammarExpression.choice(
      .sequence(.literal("0"), .range("1", "9")), .sequence(.oneOf("12"), digit), .sequence(.literal("3"), .oneOf("01")))
    let longMonth = GrammarExpression.choice(.sequence(.literal("0"), .oneOf("13578")), .sequence(.literal("1"), .oneOf("02")))
    let shortMonth = GrammarExpression.choice(.sequence(.literal("0"), .oneOf("469")), .literal("11"))
    let monthAndDay = GrammarExpression.choice(
      .sequence(longMonth, .literal("-"), dayTo31),
      .sequence(shortMonth, .literal("-"), dayTo30),
      .sequence(.literal("02-"), dayTo28))
    let leapYear = GrammarExpression.choice(
      .sequence(digits(2), multipleOfFour),
      .sequence(.choice(multipleOfFour, .literal("00")), .literal("00")))
    return .choice(
      .sequence(digits(4), .literal("-"), monthAndDay),
      .sequence(leapYear, .literal("-02-29")))
  }

  static var time: GrammarExpression {
    let hour = GrammarExpression.choice(.sequence(.oneOf("01"), digit), .sequence(.literal("2"), .range("0", "3")))
    let sixty = GrammarExpression.sequence(.range("0", "5"), digit)
    let fraction = GrammarExpression.optional(.sequence(.literal("."), .repeated(digit, min: 1, max: 9)))
    let offset = GrammarExpression.choice(.literal("Z"), .sequence(.oneOf("+-"), hour, .literal(":"), sixty))
    return .sequence(hour, .literal(":"), sixty, .literal(":"), sixty, fraction, offset)
  }

  static var uuid: GrammarExpression {
    let hex = GrammarExpression.oneOf("0123456789abcdefABCDEF")
    func group(_ count: Int) -> GrammarExpression { .repeated(hex, min: count, max: count) }
    return .sequence(group(8), .literal("-"), group(4), .literal("-"), group(4), .literal("-"), group(4), .literal("-"), group(12))
  }
}
