/// A guide as written in a `@Guide` attribute: `.range(1...5)`, `.count(3)`, `.pattern("…")`.
///
/// The compiler type-checks an attribute's arguments where the attribute is written, without the
/// property's type, so a ``GenerationGuide`` there could not tell which `Value` `.count(3)` is for.
/// `GuideArgument` has the same factory methods without a type parameter; `@Generable` copies the
/// guide expressions into the schema, where they become `GenerationGuide`s of the property's type
/// and are checked against it. A `GuideArgument` value itself holds nothing: write guides inline
/// in the attribute.
public struct GuideArgument: Sendable {
  init() {}

  // MARK: Strings

  /// One of these strings (see ``GenerationGuide/anyOf(_:)``).
  public static func anyOf(_ values: [String]) -> GuideArgument { GuideArgument() }

  /// Exactly this string (see ``GenerationGuide/constant(_:)``).
  public static func constant(_ value: String) -> GuideArgument { GuideArgument() }

  /// A string matching this regular expression (see ``GenerationGuide/pattern(_:)``).
  public static func pattern(_ regex: String) -> GuideArgument { GuideArgument() }

  // MARK: Numbers

  /// At least `value`.
  public static func minimum<Number: BinaryInteger>(_ value: Number) -> GuideArgument { GuideArgument() }

  /// At least `value`.
  public static func minimum<Number: BinaryFloatingPoint>(_ value: Number) -> GuideArgument { GuideArgument() }

  /// At most `value`.
  public static func maximum<Number: BinaryInteger>(_ value: Number) -> GuideArgument { GuideArgument() }

  /// At most `value`.
  public static func maximum<Number: BinaryFloatingPoint>(_ value: Number) -> GuideArgument { GuideArgument() }

  /// Within `range`.
  public static func range<Number: BinaryInteger>(_ range: ClosedRange<Number>) -> GuideArgument { GuideArgument() }

  /// Within `range`.
  public static func range<Number: BinaryFloatingPoint>(_ range: ClosedRange<Number>) -> GuideArgument { GuideArgument() }

  // MARK: Arrays

  /// Exactly `count` elements.
  public static func count(_ count: Int) -> GuideArgument { GuideArgument() }

  /// A number of elements within `range`.
  public static func count(_ range: ClosedRange<Int>) -> GuideArgument { GuideArgument() }

  /// At least `count` elements.
  public static func minimumCount(_ count: Int) -> GuideArgument { GuideArgument() }

  /// At most `count` elements.
  public static func maximumCount(_ count: Int) -> GuideArgument { GuideArgument() }

  /// Every element narrowed by `guide`.
  public static func element(_ guide: GuideArgument) -> GuideArgument { GuideArgument() }
}
