import Foundation

/// Checks JSON values against a JSON Schema: the subset that guided generation supports.
///
/// Use it to check answers that were not produced under a grammar (a cloud model's structured
/// output) and in tests. Supported keywords: `type`, `enum`, `const`, `anyOf`, `oneOf` (exactly
/// one), `allOf`, `$ref` (local JSON pointers such as `#/$defs/Name`), `nullable` (OpenAPI:
/// `null` is also valid), `properties`, `required`, `additionalProperties`, `prefixItems`,
/// `items`, `minItems`, `maxItems`, `minLength`, `maxLength` (in Unicode code points),
/// `pattern`, `format` (`date`, `time`, `date-time` and `uuid` are checked; other formats are
/// annotations), `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or the
/// draft-4 booleans). Annotations such as `title` and `description` are ignored; any other
/// keyword is reported as a violation, because the value cannot be shown to satisfy it.
///
/// Two deliberate differences from JSON Schema match what guided generation produces:
/// `pattern` must match the **whole** string, and its character classes follow ECMA-262
/// (`\d` is `[0-9]`, `\w` is `[A-Za-z0-9_]`) even though matching runs on
/// `NSRegularExpression`. Numbers are `Double`s: `integer` means finite and integral.
///
/// ```swift
/// let validator = JSONSchemaValidator(schema: ["type": "integer", "minimum": 1])
/// validator.validate(0)  // [#: 0 is less than the minimum 1]
/// ```
public struct JSONSchemaValidator: Sendable {
  /// One way in which a value breaks the schema.
  public struct Violation: Sendable, Hashable, CustomStringConvertible {
    /// Where in the value, as a JSON pointer from `#` (e.g. `#/tags/0`).
    public var path: String
    /// What is wrong, for people.
    public var message: String
    /// `true` when the schema uses a keyword this validator cannot check (the value may or may
    /// not follow it), rather than the value breaking the schema.
    public var isUncheckedKeyword: Bool

    /// A violation at `path` (a JSON pointer from `#`), described by `message`.
    public init(path: String, message: String, isUncheckedKeyword: Bool = false) {
      self.path = path
      self.message = message
      self.isUncheckedKeyword = isUncheckedKeyword
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
  }

  /// Thrown by ``check(_:)``: the value breaks the schema.
  public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every violation found.
    public var violations: [Violation]

    /// The violations, in one line.
    public var description: String {
      "the value does not match the schema: " + violations.map(\.description).joined(separator: "; ")
    }
  }

  /// The schema document, if the validator was made for one.
  public let schema: JSONValue?

  /// A validator for `schema`: ``validate(_:)`` checks values against it, and its `$ref`s
  /// resolve inside it.
  public init(schema: JSONValue) {
    self.schema = schema
  }

  /// A validator for any schema, passed to ``validate(_:against:)``.
  public init() {
    self.schema = nil
  }

  /// Every violation of the validator's schema by `instance`; empty when it is valid (and
  /// always empty for a validator made without a schema).
  public func validate(_ instance: JSONValue) -> [Violation] {
    validate(instance, against: schema ?? .bool(true))
  }

  /// Every violation of `subschema` by `instance`. `$ref`s resolve inside the validator's
  /// schema, or inside `subschema` for a validator made without one.
  public func validate(_ instance: JSONValue, against subschema: JSONValue) -> [Violation] {
    let report = Report(document: schema ?? subschema)
    check(instance, against: subschema, at: "#", depth: 0, into: report)
    return report.violations
  }

  /// Throws a ``ValidationError`` listing the violations when `instance` does not satisfy the
  /// validator's schema.
  public func check(_ instance: JSONValue) throws(ValidationError) {
    let violations = validate(instance)
    if !violations.isEmpty { throw ValidationError(violations: violations) }
  }

  /// The violations found so far (a class, so nested checks and `fail` closures share it).
  private final class Report {
    let document: JSONValue
    var violations: [Violation] = []
    init(document: JSONValue) { self.document = document }
  }

  // MARK: Keywords

  private static let annotations: Set<String> = [
    "title", "description", "$schema", "$id", "default", "examples", "$comment", "propertyOrdering",
    "deprecated", "readOnly", "writeOnly", "$defs", "definitions",
  ]
  private static let assertions: Set<String> = [
    "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "nullable",
    "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  ]
  private static let maximumDepth = 256

  private func check(
    _ instance: JSONValue, against schema: JSONValue, at path: String, depth: Int, into report: Report
  ) {
    func fail(_ message: String) { report.violations.append(Violation(path: path, message: message)) }
    guard depth < Self.maximumDepth else { return fail("the schema nests too deeply (a $ref cycle?)") }
    let keywords: [String: JSONValue]
    switch schema {
    case .bool(true): return
    case .bool(false): return fail("no value is allowed here")
    case .object(let members): keywords = members
    default: return fail("the schema is not an object or a boolean")
    }
    if keywords["nullable"] == .bool(true), instance == .null { return }
    for keyword in keywords.keys.sorted() where !Self.annotations.contains(keyword) && !Self.assertions.contains(keyword) {
      report.violations.append(Violation(path: path, message: "the schema keyword '\(keyword)' cannot be checked",
                                         isUncheckedKeyword: true))
    }

    if let reference = keywords["$ref"] {
      if case .string(let pointer) = reference, let target = Self.resolve(pointer, in: report.document) {
        check(instance, against: target, at: path, depth: depth + 1, into: report)
      } else {
        fail("the $ref \(reference.jsonString) does not resolve")
      }
    }
    if let type = keywords["type"] { checkType(instance, type, fail) }
    if let options = keywords["enum"] {
      if case .array(let values) = options, values.contains(instance) {} else { fail("\(instance.jsonString) is not one of the allowed values") }
    }
    if let constant = keywords["const"], constant != instance {
      fail("\(instance.jsonString) is not \(constant.jsonString)")
    }
    checkComposites(instance, keywords, at: path, depth: depth, fail, into: report)

    switch instance {
    case .string(let text): checkString(text, keywords, fail)
    case .number(let value): checkNumber(value, keywords, fail)
    case .object(let members): checkObject(members, keywords, at: path, depth: depth, fail, into: report)
    case .array(let items): checkArray(items, keywords, at: path, depth: depth, fail, into: report)
    case .null, .bool: break
    }
  }

  private func checkType(_ instance: JSONValue, _ type: JSONValue, _ fail: (String) -> Void) {
    let names: [String]
    switch type {
    case .string(let name): names = [name]
    case .array(let list): names = list.compactMap { if case .string(let name) = $0 { name } else { nil } }
    default: return fail("'type' is not a type name")
    }
    let matches = names.contains { name in
      switch (name, instance) {
      case ("null", .null), ("boolean", .bool), ("string", .string), ("object", .object), ("array", .array): true
      case ("number", .number(let value)): value.isFinite
      case ("integer", .number(let value)): value.isFinite && value.rounded() == value
      default: false
      }
    }
    if !matches { fail("\(instance.jsonString) is not of type \(names.joined(separator: " or "))") }
  }

  private func checkComposites(
    _ instance: JSONValue, _ keywords: [String: JSONValue], at path: String, depth: Int,
    _ fail: (String) -> Void, into report: Report
  ) {
    func branches(_ keyword: String) -> [JSONValue]? {
      guard let value = keywords[keyword] else { return nil }
      guard case .array(let schemas) = value, !schemas.isEmpty else {
        fail("'\(keyword)' is not a non-empty array of schemas")
        return nil
      }
      return schemas
    }
    func isValid(_ branch: JSONValue) -> Bool {
      let branchReport = Report(document: report.document)
      check(instance, against: branch, at: path, depth: depth + 1, into: branchReport)
      return branchReport.violations.isEmpty
    }
    if let schemas = branches("allOf") {
      for schema in schemas { check(instance, against: schema, at: path, depth: depth + 1, into: report) }
    }
    if let schemas = branches("anyOf"), !schemas.contains(where: isValid) {
      fail("\(instance.jsonString) matches none of the 'anyOf' alternatives")
    }
    if let schemas = branches("oneOf") {
      let matching = schemas.filter(isValid).count
      if matching != 1 { fail("\(instance.jsonString) matches \(matching) of the 'oneOf' alternatives instead of exactly one") }
    }
  }

  // MARK: Strings

  private func checkString(_ text: String, _ keywords: [String: JSONValue], _ fail: (String) -> Void) {
    let length = text.unicodeScalars.count
    if let minimum = count(keywords, "minLength", fail), length < minimum {
      fail("the string has \(length) characters, fewer than \(minimum)")
    }
    if let maximum = count(keywords, "maxLength", fail), length > maximum {
      fail("the string has \(length) characters, more than \(maximum)")
    }
    if let pattern = keywords["pattern"] {
      guard case .string(let source) = pattern,
            let expression = try? NSRegularExpression(pattern: "\\A(?:" + Self.icuPattern(source) + ")\\z") else {
        return fail("the pattern \(pattern.jsonString) is not a valid regular expression")
      }
      let range = NSRange(text.startIndex..., in: text)
      if expression.firstMatch(in: text, options: [], range: range) == nil {
        fail("\(JSONValue.string(text).jsonString) does not match the pattern \(pattern.jsonString)")
      }
    }
    if case .string(let format)? = keywords["format"] {
      let scalars = Array(text.unicodeScalars)
      let valid: Bool? = switch format {
      case "date": Self.isDate(scalars[...])
      case "time": Self.isTime(scalars[...])
      case "date-time": scalars.count > 11 && "Tt".unicodeScalars.contains(scalars[10])
        && Self.isDate(scalars[..<10]) && Self.isTime(scalars[11...])
      case "uuid": Self.isUUID(scalars)
      default: nil
      }
      if valid == false { fail("\(JSONValue.string(text).jsonString) is not a valid \(format)") }
    }
  }

  /// `pattern` (ECMA-262) rewritten for ICU: ECMA's ASCII meanings of `\d`, `\w`, `\s` and
  /// `.`, and escapes for characters that are special only to ICU.
  static func icuPattern(_ pattern: String) -> String {
    let space = "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
    let classes: [Unicode.Scalar: (inside: String, outside: String)] = [
      "d": ("0-9", "[0-9]"), "D": ("[^0-9]", "[^0-9]"),
      "w": ("A-Za-z0-9_", "[A-Za-z0-9_]"), "W": ("[^A-Za-z0-9_]", "[^A-Za-z0-9_]"),
      "s": (space, "[\(space)]"), "S": ("[^\(space)]", "[^\(space)]"),
    ]
    let characters = Array(pattern.unicodeScalars)
    var result = ""
    var inClass = false
    var index = 0
    while index < characters.count {
      let character = characters[index]
      index += 1
      if character == "\\", index < characters.count {
        let escaped = characters[index]
        index += 1
        if let replacement = classes[escaped] {
          result += inClass ? replacement.inside : replacement.outside
        } else if escaped == "0" {
          result += "\\x{0}"
        } else if escaped == "v" {
          result += "\\x{0B}"
        } else if escaped == "b", inClass {
          result += "\\x{08}"
        } else {
          result += "\\" + String(escaped)
        }
      } else if inClass {
        if character == "]" {
          inClass = false
          result += "]"
        } else if "[&$:{}~".unicodeScalars.contains(character) {
          result += "\\" + String(character)  // literal in ECMA, set syntax in ICU
        } else {
          result.unicodeScalars.append(character)
        }
      } else if character == "[" {
        inClass = true
        result += "["
        if index < characters.count, characters[index] == "^" {
          result += "^"
          index += 1
        }
      } else if character == "." {
        result += "[^\\n\\r\\x{2028}\\x{2029}]"
      } else if character == "{", let length = quantifierLength(characters, at: index - 1) {
        result += String(String.UnicodeScalarView(characters[(index - 1)..<(index - 1 + length)]))
        index += length - 1
      } else if character == "{" || character == "}" {
        result += "\\" + String(character)  // a literal brace in ECMA
      } else {
        result.unicodeScalars.append(character)
      }
    }
    return result
  }

  /// The length of the quantifier `{n}`, `{n,}` or `{n,m}` starting at `start`, if there is one.
  private static func quantifierLength(_ characters: [Unicode.Scalar], at start: Int) -> Int? {
    var index = start + 1
    var digits = 0
    while index < characters.count, ("0"..."9").contains(characters[index]) { index += 1; digits += 1 }
    guard digits > 0 else { return nil }
    if index < characters.count, characters[index] == "," {
      index += 1
      while index < characters.count, ("0"..."9").contains(characters[index]) { index += 1 }
    }
    return index < characters.count && characters[index] == "}" ? index + 1 - start : nil
  }

  private static func number(_ scalars: ArraySlice<Unicode.Scalar>, _ offset: Int, _ length: Int) -> Int? {
    let start = scalars.startIndex + offset
    guard start + length <= scalars.endIndex else { return nil }
    var value = 0
    for scalar in scalars[start..<start + length] {
      guard ("0"..."9").contains(scalar) else { return nil }
      value = value * 10 + Int(scalar.value - 48)
    }
    return value
  }

  /// RFC 3339 `full-date`, with the month's real length.
  static func isDate(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
    guard scalars.count == 10, scalars[scalars.startIndex + 4] == "-", scalars[scalars.startIndex + 7] == "-",
          let year = number(scalars, 0, 4), let month = number(scalars, 5, 2), let day = number(scalars, 8, 2),
          (1...12).contains(month) else { return false }
    let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return (1...lengths[month - 1]).contains(day)
  }

  /// RFC 3339 `full-time` (a leap second `60` is allowed).
  static func isTime(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
    let start = scalars.startIndex
    guard scalars.count >= 9, scalars[start + 2] == ":", scalars[start + 5] == ":",
          let hour = number(scalars, 0, 2), let minute = number(scalars, 3, 2), let second = number(scalars, 6, 2),
          hour <= 23, minute <= 59, second <= 60 else { return false }
    var index = start + 8
    if index < scalars.endIndex, scalars[index] == "." {
      index += 1
      let digitsStart = index
      while index < scalars.endIndex, ("0"..."9").contains(scalars[index]) { index += 1 }
      guard index > digitsStart else { return false }
    }
    let offset = scalars[index...]
    if offset.count == 1, offset.first == "Z" || offset.first == "z" { return true }
    guard offset.count == 6, offset.first == "+" || offset.first == "-", offset[offset.startIndex + 3] == ":",
          let offsetHour = number(offset, 1, 2), let offsetMinute = number(offset, 4, 2) else { return false }
    return offsetHour <= 23 && offsetMinute <= 59
  }

  static func isUUID(_ scalars: [Unicode.Scalar]) -> Bool {
    guard scalars.count == 36 else { return false }
    return scalars.enumerated().allSatisfy { index, scalar in
      [8, 13, 18, 23].contains(index) ? scalar == "-" : scalar.properties.isASCIIHexDigit
    }
  }

  // MARK: Numbers

  private func checkNumber(_ value: Double, _ keywords: [String: JSONValue], _ fail: (String) -> Void) {
    let text = JSONValue.number(value).jsonString
    func limit(_ keyword: String) -> Double? {
      guard let bound = keywords[keyword] else { return nil }
      guard case .number(let number) = bound else {
        if case .bool = bound { return nil }
        fail("'\(keyword)' is not a number")
        return nil
      }
      return number
    }
    let exclusiveMinimumFlag = keywords["exclusiveMinimum"] == .bool(true)
    let exclusiveMaximumFlag = keywords["exclusiveMaximum"] == .bool(true)
    if let minimum = limit("minimum") {
      if exclusiveMinimumFlag ? value <= minimum : value < minimum {
        fail("\(text) is less than \(exclusiveMinimumFlag ? "or equal to " : "")the minimum \(JSONValue.number(minimum).jsonString)")
      }
    }
    if let maximum = limit("maximum") {
      if exclusiveMaximumFlag ? value >= maximum : value > maximum {
        fail("\(text) is greater than \(exclusiveMaximumFlag ? "or equal to " : "")the maximum \(JSONValue.number(maximum).jsonString)")
      }
    }
    if let minimum = limit("exclusiveMinimum"), value <= minimum {
      fail("\(text) is not greater than the exclusive minimum \(JSONValue.number(minimum).jsonString)")
    }
    if let maximum = limit("exclusiveMaximum"), value >= maximum {
      fail("\(text) is not less than the exclusive maximum \(JSONValue.number(maximum).jsonString)")
    }
  }

  private func count(_ keywords: [String: JSONValue], _ keyword: String, _ fail: (String) -> Void) -> Int? {
    guard let value = keywords[keyword] else { return nil }
    guard case .number(let number) = value, number >= 0, number.rounded() == number, number < 1e15 else {
      fail("'\(keyword)' is not a non-negative integer")
      return nil
    }
    return Int(number)
  }

  // MARK: Objects and arrays

  private func checkObject(
    _ members: [String: JSONValue], _ keywords: [String: JSONValue], at path: String, depth: Int,
    _ fail: (String) -> Void, into report: Report
  ) {
    var properties: [String: JSONValue] = [:]
    if let value = keywords["properties"] {
      if case .object(let schemas) = value { properties = schemas } else { fail("'properties' is not an object") }
    }
    if case .array(let required)? = keywords["required"] {
      for case .string(let name) in required where members[name] == nil {
        fail("the required property '\(name)' is missing")
      }
    }
    for name in members.keys.sorted() {
      let memberPath = Self.pointer(path, name)
      if let schema = properties[name] {
        check(members[name]!, against: schema, at: memberPath, depth: depth + 1, into: report)
      } else if let additional = keywords["additionalProperties"] {
        if additional == .bool(false) {
          fail("the property '\(name)' is not allowed")
        } else {
          check(members[name]!, against: additional, at: memberPath, depth: depth + 1, into: report)
        }
      }
    }
  }

  private func checkArray(
    _ items: [JSONValue], _ keywords: [String: JSONValue], at path: String, depth: Int,
    _ fail: (String) -> Void, into report: Report
  ) {
    var prefix: [JSONValue] = []
    if let value = keywords["prefixItems"] {
      if case .array(let schemas) = value { prefix = schemas } else { fail("'prefixItems' is not an array") }
    }
    for (index, item) in items.enumerated() {
      let itemPath = Self.pointer(path, String(index))
      if index < prefix.count {
        check(item, against: prefix[index], at: itemPath, depth: depth + 1, into: report)
      } else if let schema = keywords["items"] {
        if case .array = schema {
          fail("'items' as an array of schemas is not supported")
          break
        }
        if schema == .bool(false) {
          fail("the array has \(items.count) elements; only \(prefix.count) are allowed")
          break
        }
        check(item, against: schema, at: itemPath, depth: depth + 1, into: report)
      }
    }
    if let minimum = count(keywords, "minItems", fail), items.count < minimum {
      fail("the array has \(items.count) elements, fewer than \(minimum)")
    }
    if let maximum = count(keywords, "maxItems", fail), items.count > maximum {
      fail("the array has \(items.count) elements, more than \(maximum)")
    }
  }

  // MARK: References

  private static func pointer(_ path: String, _ token: String) -> String {
    path + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
  }

  /// The schema at a local JSON pointer such as `#/$defs/Name`.
  private static func resolve(_ reference: String, in schema: JSONValue) -> JSONValue? {
    schema.value(atReference: reference)
  }
}
