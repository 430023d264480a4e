/// A constraint on the values generated for a property: a range, a count, allowed strings, a pattern.
///
/// Written in `@Guide` attributes:
/// ```swift
/// @Guide(description: "Stars", .range(1...5)) var rating: Int
/// @Guide(.count(3)) var tags: [String]
/// @Guide(.anyOf(["red", "green"])) var colour: String
/// @Guide(.pattern("[A-Z]{3}-[0-9]{4}")) var code: String
/// ```
/// On-device models enforce guides exactly (in the decoding grammar); cloud models receive them
/// as JSON Schema keywords.
public struct GenerationGuide<Value>: Sendable, Hashable {
  let constraint: GuideConstraint

  init(_ constraint: GuideConstraint) { self.constraint = constraint }
}

/// The JSON Schema keywords a guide adds.
indirect enum GuideConstraint: Sendable, Hashable {
  case keywords([String: JSONValue])
  case items(GuideConstraint)

  func apply(to schema: JSONValue) -> JSONValue {
    guard case .object(var members) = schema else { return schema }
    switch self {
    case .keywords(let keywords):
      members.merge(keywords) { _, new in new }
    case .items(let constraint):
      members["items"] = constraint.apply(to: members["items"] ?? [:])
    }
    return .object(members)
  }
}

extension GenerationGuide where Value == String {
  /// One of these strings.
  public static func anyOf(_ values: [String]) -> GenerationGuide<String> {
    GenerationGuide(.keywords(["enum": .array(values.map { .string($0) })]))
  }

  /// Exactly this string.
  public static func constant(_ value: String) -> GenerationGuide<String> {
    GenerationGuide(.keywords(["const": .string(value)]))
  }

  /// A string matching this regular expression as a whole (a subset of regex syntax: literals,
  /// classes, groups, alternation, quantifiers).
  public static func pattern(_ regex: String) -> GenerationGuide<String> {
    GenerationGuide(.keywords(["pattern": .string(regex)]))
  }
}

extension GenerationGuide where Value: GenerableInteger {
  /// At least `value`.
  public static func minimum(_ value: Value) -> GenerationGuide<Value> { .bounds(minimum: Double(value)) }

  /// At most `value`.
  public static func maximum(_ value: Value) -> GenerationGuide<Value> { .bounds(maximum: Double(value)) }

  /// Within `range`.
  public static func range(_ range: ClosedRange<Value>) -> GenerationGuide<Value> {
    .bounds(minimum: Double(range.lowerBound), maximum: Double(range.upperBound))
  }
}

extension GenerationGuide where Value: BinaryFloatingPoint {
  /// At least `value`.
  public static func minimum(_ value: Value) -> GenerationGuide<Value> { .bounds(minimum: Double(value)) }

  /// At most `value`.
  public static func maximum(_ value: Value) -> GenerationGuide<Value> { .bounds(maximum: Double(value)) }

  /// Within `range`.
  public static func range(_ range: ClosedRange<Value>) -> GenerationGuide<Value> {
    .bounds(minimum: Double(range.lowerBound), maximum: Double(range.upperBound))
  }
}

extension GenerationGuide {
  /// `minimum` / `maximum` keywords.
  static func bounds(minimum: Double? = nil, maximum: Double? = nil) -> GenerationGuide<Value> {
    var keywords: [String: JSONValue] = [:]
    if let minimum { keywords["minimum"] = .number(minimum) }
    if let maximum { keywords["maximum"] = .number(maximum) }
    return GenerationGuide(.keywords(keywords))
  }
}

extension GenerationGuide {
  /// Exactly `count` elements.
  public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
    GenerationGuide<[Element]>(.keywords(["minItems": .number(Double(count)), "maxItems": .number(Double(count))]))
  }

  /// A number of elements within `range`.
  public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]> where Value == [Element] {
    GenerationGuide<[Element]>(.keywords(["minItems": .number(Double(range.lowerBound)), "maxItems": .number(Double(range.upperBound))]))
  }

  /// At least `count` elements.
  public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
    GenerationGuide<[Element]>(.keywords(["minItems": .number(Double(count))]))
  }

  /// At most `count` elements.
  public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
    GenerationGuide<[Element]>(.keywords(["maxItems": .number(Double(count))]))
  }

  /// Every element narrowed by `guide`.
  public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]> where Value == [Element] {
    GenerationGuide<[Element]>(.items(guide.constraint))
  }
}
