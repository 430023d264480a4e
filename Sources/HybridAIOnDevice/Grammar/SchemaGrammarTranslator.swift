import Foundation
import HybridAI

/// Walks a JSON Schema document and builds the grammar rules for it; one translator compiles
/// one schema. ``JSONSchemaGrammarCompiler`` is the public entry point.
struct SchemaGrammarTranslator {
  /// Keywords that only describe the schema; ignored.
  static let annotations: Set<String> = [
    "title", "description", "$schema", "$id", "default", "examples", "$comment", "propertyOrdering",
    "deprecated", "readOnly", "writeOnly", "$defs", "definitions",
  ]
  /// Keywords that constrain the value and are translated.
  static let assertions: Set<String> = [
    "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "nullable",
    "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  ]
  static let typeNames = ["null", "boolean", "object", "array", "string", "number", "integer"]

  let document: JSONValue
  let whitespace: JSONSchemaGrammarCompiler.WhitespaceStyle
  var rules: GrammarRuleSet
  private var referenceRules: [String: String] = [:]
  private var sharedRules: [SharedRule: String] = [:]

  init(document: JSONValue, whitespace: JSONSchemaGrammarCompiler.WhitespaceStyle, prefix: String) {
    self.document = document
    self.whitespace = whitespace
    self.rules = GrammarRuleSet(prefix: prefix)
  }

  /// The grammar text, with `startName` as the rule for the whole document.
  mutating func translate(startName: String) throws(SchemaGrammarError) -> String {
    rules.claim(startName)
    rules.define(startName, as: .nothing)  // first in the text
    let body = try expression(for: document, at: "#", hint: "")
    rules.define(startName, as: body)
    try rules.checkLeftRecursion()
    return rules.text()
  }

  // MARK: Schemas

  /// The grammar for values that `schema` (found at `path`) accepts. `hint` names the rules
  /// made for it.
  mutating func expression(for schema: JSONValue, at path: String, hint: String) throws(SchemaGrammarError) -> GrammarExpression {
    switch schema {
    case .bool(true):
      return shared(.value)
    case .bool(false):
      throw .invalidSchema(path: path, reason: "the schema 'false' allows no value")
    case .object(let keywords):
      return try expression(for: keywords, at: path, hint: hint)
    default:
      throw .invalidSchema(path: path, reason: "a schema must be an object or a boolean")
    }
  }

  private mutating func expression(
    for schema: [String: JSONValue], at path: String, hint: String
  ) throws(SchemaGrammarError) -> GrammarExpression {
    for keyword in schema.keys.sorted() where !Self.annotations.contains(keyword) && !Self.assertions.contains(keyword) {
      throw .unsupportedKeyword(keyword, path: path)
    }
    let nullable = try Self.boolean(schema, "nullable", at: path) ?? false
    if schema["enum"] != nil || schema["const"] != nil {
      return try enumeration(schema, at: path)
    }
    let assertions = Set(schema.keys).subtracting(Self.annotations).subtracting(["nullable"])
    let composites = ["$ref", "anyOf", "oneOf", "allOf"].filter { assertions.contains($0) }
    if let composite = composites.first {
      let siblings = assertions.subtracting([composite]).sorted()
      guard siblings.isEmpty else {
        throw .unsupportedValue(
          keyword: composite, path: path,
          reason: "it cannot be combined with \(siblings.map { "'\($0)'" }.joined(separator: ", ")) in the same schema; move them into the referenced schema or into each alternative")
      }
      let value = try compositeExpression(composite, schema[composite]!, at: path, hint: hint)
      return nullable ? .choice(.literal("null"), value) : value
    }

    var types = try Self.types(schema, at: path)
    if nullable, !types.contains("null") { types.append("null") }
    if types.contains("number") { types.removeAll { $0 == "integer" } }
    if schema["type"] == nil, assertions.isEmpty { return shared(.value) }
    var alternatives: [GrammarExpression] = []
    for type in Self.typeNames where types.contains(type) {
      switch type {
      case "null": alternatives.append(.literal("null"))
      case "boolean": alternatives.append(.choice(.literal("true"), .literal("false")))
      case "string": alternatives.append(try stringExpression(schema, at: path))
      case "integer": alternatives.append(try integerExpression(schema, at: path))
      case "number": alternatives.append(try numberExpression(schema, at: path))
      case "object": alternatives.append(try objectExpression(schema, at: path, hint: hint))
      default: alternatives.append(try arrayExpression(schema, at: path, hint: hint))
      }
    }
    return .choice(alternatives)
  }

  private static func types(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError) -> [String] {
    let names: [String]
    switch schema["type"] {
    case nil:
      return ["null", "boolean", "object", "array", "string", "number"]
    case .string(let name)?:
      names = [name]
    case .array(let list)?:
      var collected: [String] = []
      for item in list {
        guard case .string(let name) = item else {
          throw .invalidSchema(path: path, reason: "'type' must be a type name or an array of type names")
        }
        collected.append(name)
      }
      names = collected
    default:
      throw .invalidSchema(path: path, reason: "'type' must be a type name or an array of type names")
    }
    if names.isEmpty { throw .invalidSchema(path: path, reason: "'type' is an empty array, which allows no value") }
    for name in names where !typeNames.contains(name) {
      throw .invalidSchema(path: path, reason: "unknown type '\(name)' (expected one of \(typeNames.joined(separator: ", ")))")
    }
    return names
  }

  /// `enum` and `const`: the listed values that also satisfy the rest of the schema, written
  /// as compact JSON.
  private mutating func enumeration(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError) -> GrammarExpression {
    var values: [JSONValue]
    switch schema["enum"] {
    case nil:
      values = []
    case .array(let list)? where !list.isEmpty:
      values = list
    default:
      throw .invalidSchema(path: path, reason: "'enum' must be a non-empty array")
    }
    if let constant = schema["const"] {
      values = schema["enum"] == nil ? [constant] : values.filter { $0 == constant }
    }
    let validator = JSONSchemaValidator(schema: document)
    let allowed = values.filter { validator.validate($0, against: .object(schema)).isEmpty }
    guard !allowed.isEmpty else {
      throw .invalidSchema(path: path, reason: "no value of 'enum'/'const' satisfies the rest of the schema")
    }
    var seen: Set<String> = []
    var alternatives: [GrammarExpression] = []
    for value in allowed {
      let text = value.jsonString
      if seen.insert(text).inserted { alternatives.append(.literal(text)) }
    }
    return .choice(alternatives)
  }

  private mutating func compositeExpression(
    _ keyword: String, _ value: JSONValue, at path: String, hint: String
  ) throws(SchemaGrammarError) -> GrammarExpression {
    if keyword == "$ref" {
      guard case .string(let reference) = value else {
        throw .invalidSchema(path: path, reason: "'$ref' must be a string")
      }
      return try referenced(reference, at: path)
    }
    guard case .array(let schemas) = value, !schemas.isEmpty else {
      throw .invalidSchema(path: path, reason: "'\(keyword)' must be a non-empty array of schemas")
    }
    if keyword == "allOf" {
      guard schemas.count == 1 else {
        throw .unsupportedValue(keyword: "allOf", path: path, reason: "only a single schema is supported (an intersection of several schemas cannot be expressed)")
      }
      return try expression(for: schemas[0], at: Self.pointer(path, "allOf", "0"), hint: hint)
    }
    var alternatives: [GrammarExpression] = []
    for (index, schema) in schemas.enumerated() {
      alternatives.append(try expression(for: schema, at: Self.pointer(path, keyword, String(index)), hint: "\(hint)-\(index)"))
    }
    return .choice(alternatives)
  }

  /// A rule for the schema `reference` points to; recursion is fine (the rule is named before
  /// its body is built).
  private mutating func referenced(_ reference: String, at path: String) throws(SchemaGrammarError) -> GrammarExpression {
    guard let target = Self.resolve(reference, in: document) else {
      throw .unresolvedReference(reference, path: path)
    }
    let pointer = target.pointer
    if let name = referenceRules[pointer] { return .rule(name) }
    let last = pointer.split(separator: "/").last.map(String.init) ?? "#"
    let hint = last == "#" ? "root" : last
    let name = rules.reserveName(hint)
    referenceRules[pointer] = name
    rules.define(name, as: .nothing)
    rules.define(name, as: try expression(for: target.schema, at: pointer, hint: hint))
    return .rule(name)
  }

  /// The schema at a local JSON pointer (`#`, `#/$defs/Name`, `#/definitions/Name`, any path).
  static func resolve(_ reference: String, in document: JSONValue) -> (schema: JSONValue, pointer: String)? {
    guard let schema = document.value(atReference: reference) else { return nil }
    let pointer = String(reference.dropFirst())
    return (schema, "#" + (pointer.removingPercentEncoding ?? pointer))
  }

  // MARK: Shared rules

  enum SharedRule: String {
    case value, object, array, string, number, integer, character = "char", whitespace = "ws"
  }

  /// A rule every schema may use (any value, any string, whitespace…), defined on first use.
  mutating func shared(_ kind: SharedRule) -> GrammarExpression {
    if let name = sharedRules[kind] { return .rule(name) }
    let name = rules.reserveName(kind.rawValue)
    sharedRules[kind] = name
    rules.define(name, as: .nothing)
    let body: GrammarExpression
    switch kind {
    case .value:
      body = .choice(shared(.object), shared(.array), shared(.string), shared(.number),
                     .literal("true"), .literal("false"), .literal("null"))
    case .object:
      let member = GrammarExpression.sequence(shared(.string), colon, shared(.value))
      body = .sequence(.literal("{"), whitespaceExpression,
                       .optional(.sequence(member, .repeated(.sequence(comma, member), min: 0, max: nil), whitespaceExpression)),
                       .literal("}"))
    case .array:
      let value = shared(.value)
      body = .sequence(.literal("["), whitespaceExpression,
                       .optional(.sequence(value, .repeated(.sequence(comma, value), min: 0, max: nil), whitespaceExpression)),
                       .literal("]"))
    case .string:
      body = .sequence(.literal("\""), .repeated(shared(.character), min: 0, max: nil), .literal("\""))
    case .character:
      body = JSONStringGrammar.anyCharacter
    case .number:
      let digit = GrammarExpression.range("0", "9")
      body = .sequence(
        .optional(.literal("-")),
        .choice(.literal("0"), .sequence(.range("1", "9"), .repeated(digit, min: 0, max: IntegerRangeGrammar.limitDigits - 1))),
        .optional(.sequence(.literal("."), .repeated(digit, min: 1, max: NumberRangeGrammar.significantDigits))),
        .optional(.sequence(.oneOf("eE"), .optional(.oneOf("+-")), .repeated(digit, min: 1, max: 2))))
    case .integer:
      body = IntegerRangeGrammar.integers(from: nil, to: nil)
    case .whitespace:
      guard case .flexible(let indent) = whitespace else { body = .empty; break }
      body = .optional(.choice(.oneOf(" \t"), .sequence(.literal("\n"), .repeated(.oneOf(" \t"), min: 0, max: max(0, indent)))))
    }
    rules.define(name, as: body)
    return .rule(name)
  }

  /// Optional whitespace between tokens (nothing in the compact style).
  var whitespaceExpression: GrammarExpression {
    mutating get {
      if case .compact = whitespace { return .empty }
      return shared(.whitespace)
    }
  }

  var comma: GrammarExpression {
    mutating get { .sequence(whitespaceExpression, .literal(","), whitespaceExpression) }
  }

  var colon: GrammarExpression {
    mutating get { .sequence(whitespaceExpression, .literal(":"), whitespaceExpression) }
  }

  // MARK: Keyword values

  /// `path` extended by JSON-pointer tokens (escaped).
  static func pointer(_ path: String, _ tokens: String...) -> String {
    tokens.reduce(path) { result, token in
      result + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
  }

  static func boolean(_ schema: [String: JSONValue], _ keyword: String, at path: String) throws(SchemaGrammarError) -> Bool? {
    switch schema[keyword] {
    case nil: return nil
    case .bool(let value)?: return value
    default: throw .invalidSchema(path: path, reason: "'\(keyword)' must be true or false")
    }
  }

  static func number(_ schema: [String: JSONValue], _ keyword: String, at path: String) throws(SchemaGrammarError) -> Double? {
    switch schema[keyword] {
    case nil: return nil
    case .number(let value)? where value.isFinite: return value
    default: throw .invalidSchema(path: path, reason: "'\(keyword)' must be a number")
    }
  }

  /// A count keyword (`minItems`, `maxLength`…): a non-negative integer.
  static func count(_ schema: [String: JSONValue], _ keyword: String, at path: String) throws(SchemaGrammarError) -> Int? {
    switch schema[keyword] {
    case nil: return nil
    case .number(let value)? where value >= 0 && value.rounded() == value:
      guard value <= Double(GrammarRuleSet.largestCount) else {
        throw .unsupportedValue(keyword: keyword, path: path, reason: "counts above \(GrammarRuleSet.largestCount) are not supported")
      }
      return Int(value)
    default: throw .invalidSchema(path: path, reason: "'\(keyword)' must be a non-negative integer")
    }
  }

  static func string(_ schema: [String: JSONValue], _ keyword: String, at path: String) throws(SchemaGrammarError) -> String? {
    switch schema[keyword] {
    case nil: return nil
    case .string(let value)?: return value
    default: throw .invalidSchema(path: path, reason: "'\(keyword)' must be a string")
    }
  }
}
