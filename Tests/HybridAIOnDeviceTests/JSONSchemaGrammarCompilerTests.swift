import HybridAI
@testable import HybridAIOnDevice
import Testing

/// The GBNF text the compiler writes, and the schemas it refuses. Acceptance by llama.cpp's real
/// grammar engine is in ``LlamaGrammarTests``.
@Suite struct JSONSchemaGrammarCompilerTests {
  let compiler = JSONSchemaGrammarCompiler()

  /// The rule `name` of a grammar text.
  func rule(_ name: String, in grammar: String) -> String? {
    grammar.split(separator: "\n").first { $0.hasPrefix(name + " ::= ") }.map { String($0.dropFirst(name.count + 5)) }
  }

  // MARK: Rule shapes

  @Test func requiredPropertiesAreOneSequence() throws {
    let grammar = try compiler.compile([
      "type": "object",
      "properties": ["city": ["type": "string"], "days": ["type": "integer", "minimum": 1, "maximum": 7]],
      "required": ["city", "days"],
    ])
    #expect(grammar.hasPrefix("root ::= "))
    #expect(rule("root", in: grammar) == #""{\"city\":" string ",\"days\":" [1-7] "}""#)
    #expect(rule("string", in: grammar) == #""\"" char* "\"""#)
    #expect(rule("char", in: grammar)?.hasPrefix(#"[^\x00-\x1F\"\\\x7F] | "\\" "#) == true)
  }

  @Test func optionalPropertiesChainTheirCommas() throws {
    let grammar = try compiler.compile([
      "type": "object", "properties": ["a": ["type": "string"], "b": ["type": "boolean"], "c": ["type": "null"]],
    ])
    // The first property written decides; each later one comes with its own comma.
    #expect(rule("root", in: grammar) == #""{" ("\"a\":" string rest-2 | "\"b\":" b rest | "\"c\":null")? "}""#)
    #expect(rule("rest-2", in: grammar) == #"(",\"b\":" b)? rest"#)
    #expect(rule("rest", in: grammar) == #"",\"c\":null"?"#)
  }

  @Test func optionalPropertiesBeforeARequiredOne() throws {
    let grammar = try compiler.compile([
      "type": "object", "propertyOrdering": ["a", "b", "c"], "required": ["b"],
      "properties": ["a": ["type": "null"], "b": ["type": "null"], "c": ["type": "null"]],
    ])
    #expect(rule("root", in: grammar) == #""{" ("\"a\":null" rest-2 | "\"b\":null" rest) "}""#)
    #expect(rule("rest-2", in: grammar) == #"",\"b\":null" rest"#)
  }

  @Test func propertyOrder() throws {
    func order(_ schema: JSONValue) throws -> [String] {
      let root = try #require(rule("root", in: try compiler.compile(schema)))
      return ["alpha", "beta", "gamma", "delta"].compactMap { name in
        root.range(of: "\\\"\(name)\\\"").map { (name, root.distance(from: root.startIndex, to: $0.lowerBound)) }
      }.sorted { $0.1 < $1.1 }.map(\.0)
    }
    let properties: JSONValue = ["alpha": ["type": "null"], "beta": ["type": "null"], "gamma": ["type": "null"], "delta": ["type": "null"]]
    let all: JSONValue = ["gamma", "beta", "alpha", "delta"]
    // `required` order (optional properties follow by name, see LlamaGrammarTests).
    #expect(try order(["type": "object", "properties": properties, "required": all]) == ["gamma", "beta", "alpha", "delta"])
    // Gemini's propertyOrdering wins.
    #expect(try order(["type": "object", "properties": properties, "required": all,
                       "propertyOrdering": ["delta", "alpha", "gamma", "beta"]])
      == ["delta", "alpha", "gamma", "beta"])
    // Properties missing from propertyOrdering follow it, required ones first.
    #expect(try order(["type": "object", "properties": properties, "required": ["gamma", "delta", "beta", "alpha"],
                       "propertyOrdering": ["beta"]])
      == ["beta", "gamma", "delta", "alpha"])
  }

  @Test func integerRanges() throws {
    #expect(rule("root", in: try compiler.compile(["type": "integer", "minimum": -37, "maximum": 1234]))
      == #"[0-9] | [1-9] [0-9]{1,2} | "1" ([01] [0-9]{2} | "2" ([0-2] [0-9] | "3" [0-4])) | "-" ([1-9] | [12] [0-9] | "3" [0-7])"#)
    #expect(rule("root", in: try compiler.compile(["type": "integer", "exclusiveMinimum": 0.5, "exclusiveMaximum": 10]))
      == "[1-9]")
    #expect(rule("root", in: try compiler.compile(["type": "integer", "minimum": 100]))
      == "[1-9] [0-9]{2,14}")
    // OpenAPI 3.0 / draft-4 boolean exclusive bounds.
    #expect(rule("root", in: try compiler.compile(["type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 3]))
      == "[23]")
  }

  @Test func numberRanges() throws {
    #expect(rule("root", in: try compiler.compile(["type": "number", "minimum": 0, "maximum": 1]))
      == #""0" ("." [0-9]{1,15})? | "1" ("." "0"{1,14})?"#)
    // A strict decimal upper bound: 0.75 itself and everything above is out.
    let root = try #require(rule("root", in: try compiler.compile(["type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 0.75])))
    #expect(root.hasPrefix(#""0." ("5" ("0" ("0" "#))  // after 0.5, some later digit must be non-zero
    #expect(root.hasSuffix(#" | "6" ([0-9]{1,14})? | "7" ([0-4] ([0-9]{1,13})?)?)"#))
  }

  @Test func arrays() throws {
    let grammar = try compiler.compile(["type": "array", "items": ["type": "integer"], "minItems": 1, "maxItems": 3])
    #expect(rule("root", in: grammar) == #""[" integer repeat{0,2} "]""#)
    #expect(rule("repeat", in: grammar) == #""," integer"#)
    #expect(rule("root", in: try compiler.compile(["type": "array", "maxItems": 0])) == #""[]""#)
    #expect(rule("root", in: try compiler.compile(["type": "array"])) == "array")
  }

  @Test func patterns() throws {
    #expect(rule("root", in: try compiler.compile(["type": "string", "pattern": "^[A-Z]{2}-\\d{3,}(x|y)?$"]))
      == #""\"" [A-Z]{2} "-" [0-9]{3,} [xy]? "\"""#)
    // A nullable group repeated without bound is rewritten (llama.cpp rejects `(a*)*`).
    let nested = try compiler.compile(["type": "string", "pattern": "(a*)*b"])
    #expect(rule("root", in: nested) == #""\"" repeat* "b\"""#)
    #expect(rule("repeat", in: nested) == #""a"+"#)
    // Characters JSON must escape are written escaped.
    #expect(rule("root", in: try compiler.compile(["type": "string", "pattern": "a\"\\\\\\n"]))
      == #""\"a\\\"\\\\\\n\"""#)
  }

  @Test func formats() throws {
    let grammar = try compiler.compile(["type": "string", "format": "uuid"])
    #expect(rule("root", in: grammar) == #""\"" uuid "\"""#)
    #expect(rule("uuid", in: grammar)?.hasPrefix("[0-9A-Fa-f]{8} \"-\" [0-9A-Fa-f]{4}") == true)
  }

  @Test func enumValuesAreFilteredByTheirSchema() throws {
    let grammar = try compiler.compile(["type": "integer", "enum": [1, "a", 2.5, 3], "maximum": 2])
    #expect(rule("root", in: grammar) == #""1""#)
    #expect(rule("root", in: try compiler.compile(["const": ["a": [1, nil]]])) == #""{\"a\":[1,null]}""#)
  }

  @Test func recursionThroughReferences() throws {
    let grammar = try compiler.compile([
      "$defs": ["Node": [
        "type": "object", "properties": ["next": ["$ref": "#/$defs/Node", "nullable": true]], "required": ["next"],
      ]],
      "$ref": "#/$defs/Node",
    ])
    #expect(rule("root", in: grammar) == "Node")
    #expect(rule("Node", in: grammar) == #""{\"next\":" Node-next "}""#)
    #expect(rule("Node-next", in: grammar) == #""null" | Node"#)
  }

  @Test func anySchemaIsAnyValue() throws {
    for schema: JSONValue in [[:], true, ["description": "anything"]] {
      let grammar = try compiler.compile(schema)
      #expect(rule("root", in: grammar) == "value")
      #expect(rule("value", in: grammar) == #"object | array | string | number | "true" | "false" | "null""#)
    }
  }

  @Test func largeCountsAreSplitIntoBlocks() throws {
    // llama.cpp turns {0,m} with m above 2000 into {0,}: the compiler never writes such counts.
    let grammar = try compiler.compile(["type": "string", "minLength": 2500, "maxLength": 5000])
    #expect(rule("root", in: grammar) == #""\"" (block{2} char{500} (block? char{0,999} | block{2} char{0,500})) "\"""#)
    #expect(rule("block", in: grammar) == "char{1000}")
  }

  // MARK: Whitespace

  @Test func compactGrammarsHaveNoWhitespace() throws {
    let grammar = try compiler.compile(["type": "object", "properties": ["a": ["type": "array"]], "required": ["a"]])
    #expect(!grammar.contains(" ws"))
    #expect(!grammar.contains("\" \""))
  }

  @Test func flexibleWhitespaceIsBounded() throws {
    let grammar = try JSONSchemaGrammarCompiler(whitespace: .flexible(maximumIndent: 4))
      .compile(["type": "object", "properties": ["a": ["type": "integer"]], "required": ["a"]])
    #expect(rule("root", in: grammar) == #""{" ws "\"a\"" ws ":" ws integer ws "}""#)
    #expect(rule("ws", in: grammar) == #"([\t ] | "\n" [\t ]{0,4})?"#)
  }

  // MARK: Embedding

  @Test func embeddedRulesArePrefixed() throws {
    let (rules, name) = try compiler.compileRule(
      ["type": "object", "properties": ["tags": ["type": "array", "items": ["type": "string"]]], "required": ["tags"]],
      named: "args-get-time")
    #expect(name == "args-get-time")
    for line in rules.split(separator: "\n") {
      #expect(line.hasPrefix("args-get-time ::= ") || line.hasPrefix("args-get-time-"), "\(line)")
    }
    #expect(!rules.contains("root"))
    #expect(throws: SchemaGrammarError.invalidRuleName("args_get_time")) {
      try compiler.compileRule(["type": "string"], named: "args_get_time")
    }
  }

  // MARK: Refusals

  struct Refusal: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: JSONValue
    let error: SchemaGrammarError
    var testDescription: String { name }
  }

  static let refusals: [Refusal] = [
    Refusal(name: "unknown keyword", schema: ["type": "number", "multipleOf": 2],
            error: .unsupportedKeyword("multipleOf", path: "#")),
    Refusal(name: "nested unknown keyword",
            schema: ["type": "object", "properties": ["tags": ["type": "array", "uniqueItems": true]]],
            error: .unsupportedKeyword("uniqueItems", path: "#/properties/tags")),
    Refusal(name: "not", schema: ["not": ["type": "string"]], error: .unsupportedKeyword("not", path: "#")),
    Refusal(name: "patternProperties", schema: ["type": "object", "patternProperties": ["^a": true]],
            error: .unsupportedKeyword("patternProperties", path: "#")),
    Refusal(name: "unsupported format", schema: ["type": "string", "format": "email"],
            error: .unsupportedValue(keyword: "format", path: "#",
                                     reason: "the format 'email' is not supported (supported: date, time, date-time, uuid)")),
    Refusal(name: "format with a length", schema: ["type": "string", "format": "date", "maxLength": 10],
            error: .unsupportedValue(keyword: "format", path: "#", reason: "it cannot be combined with 'pattern', 'minLength' or 'maxLength'")),
    Refusal(name: "pattern with a length", schema: ["type": "string", "pattern": "a+", "maxLength": 3],
            error: .unsupportedValue(keyword: "pattern", path: "#",
                                     reason: "it cannot be combined with 'minLength' or 'maxLength'; express the length in the pattern")),
    Refusal(name: "allOf with two schemas", schema: ["allOf": [["type": "string"], ["maxLength": 3]]],
            error: .unsupportedValue(keyword: "allOf", path: "#",
                                     reason: "only a single schema is supported (an intersection of several schemas cannot be expressed)")),
    Refusal(name: "anyOf next to properties",
            schema: ["type": "object", "properties": ["a": ["type": "null"]], "anyOf": [["required": ["a"]]]],
            error: .unsupportedValue(keyword: "anyOf", path: "#",
                                     reason: "it cannot be combined with 'properties', 'type' in the same schema; move them into the referenced schema or into each alternative")),
    Refusal(name: "draft-4 tuple items", schema: ["type": "array", "items": [["type": "string"]]],
            error: .unsupportedValue(keyword: "items", path: "#", reason: "an array of schemas (the draft-4 tuple form) is not supported; use 'prefixItems'")),
    Refusal(name: "remote reference", schema: ["$ref": "https://example.com/schema.json"],
            error: .unresolvedReference("https://example.com/schema.json", path: "#")),
    Refusal(name: "missing definition", schema: ["$ref": "#/$defs/Missing", "$defs": [:]],
            error: .unresolvedReference("#/$defs/Missing", path: "#")),
    Refusal(name: "left recursion", schema: ["$defs": ["A": ["anyOf": [["$ref": "#/$defs/A"], ["type": "string"]]]], "$ref": "#/$defs/A"],
            error: .invalidSchema(path: "#", reason: "the schema refers to itself without any JSON in between (A -> A), which would never end")),
    Refusal(name: "false schema", schema: ["type": "object", "properties": ["a": false]],
            error: .invalidSchema(path: "#/properties/a", reason: "the schema 'false' allows no value")),
    Refusal(name: "minimum above maximum", schema: ["type": "integer", "minimum": 5, "maximum": 4],
            error: .invalidSchema(path: "#", reason: "no integer lies between the minimum and the maximum")),
    Refusal(name: "no integer between bounds", schema: ["type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2],
            error: .invalidSchema(path: "#", reason: "no integer lies between the minimum and the maximum")),
    Refusal(name: "huge integers", schema: ["type": "integer", "minimum": 1e18],
            error: .unsupportedValue(keyword: "minimum", path: "#", reason: "integers above 999999999999999 cannot be generated")),
    Refusal(name: "minItems above maxItems", schema: ["type": "array", "minItems": 3, "maxItems": 2],
            error: .invalidSchema(path: "#", reason: "'minItems' (3) is greater than 'maxItems' (2)")),
    Refusal(name: "unknown type", schema: ["type": "float"],
            error: .invalidSchema(path: "#", reason: "unknown type 'float' (expected one of null, boolean, object, array, string, number, integer)")),
    Refusal(name: "required but forbidden",
            schema: ["type": "object", "properties": [:], "required": ["a"], "additionalProperties": false],
            error: .invalidSchema(path: "#", reason: "the required property 'a' is not in 'properties' and 'additionalProperties' is false")),
    Refusal(name: "no enum value fits", schema: ["type": "string", "enum": [1, 2]],
            error: .invalidSchema(path: "#", reason: "no value of 'enum'/'const' satisfies the rest of the schema")),
    Refusal(name: "backreference", schema: ["type": "string", "pattern": "(a)\\1"],
            error: .invalidPattern("(a)\\1", path: "#/pattern", reason: "backreferences are not supported")),
    Refusal(name: "lookahead", schema: ["type": "string", "pattern": "a(?=b)"],
            error: .invalidPattern("a(?=b)", path: "#/pattern", reason: "lookahead assertions are not supported")),
    Refusal(name: "lookbehind", schema: ["type": "string", "pattern": "(?<!a)b"],
            error: .invalidPattern("(?<!a)b", path: "#/pattern", reason: "lookbehind assertions are not supported")),
    Refusal(name: "lazy quantifier", schema: ["type": "string", "pattern": "a+?"],
            error: .invalidPattern("a+?", path: "#/pattern", reason: "lazy quantifiers are not supported")),
    Refusal(name: "word boundary", schema: ["type": "string", "pattern": "\\bword"],
            error: .invalidPattern("\\bword", path: "#/pattern", reason: "word boundaries (\\b, \\B) are not supported")),
    Refusal(name: "anchor inside", schema: ["type": "string", "pattern": "a$b"],
            error: .invalidPattern("a$b", path: "#/pattern",
                                   reason: "'$' is only supported at the end of the pattern (the whole string is always matched)")),
    Refusal(name: "unbalanced group", schema: ["type": "string", "pattern": "(ab"],
            error: .invalidPattern("(ab", path: "#/pattern", reason: "missing ')'")),
    Refusal(name: "Unicode property", schema: ["type": "string", "pattern": "\\p{L}+"],
            error: .invalidPattern("\\p{L}+", path: "#/pattern", reason: "Unicode property escapes (\\p{…}) are not supported")),
  ]

  @Test(arguments: refusals)
  func refusesWhatItCannotExpress(_ refusal: Refusal) {
    #expect(throws: refusal.error) { try compiler.compile(refusal.schema) }
  }

  @Test func errorMessagesNameTheProblem() {
    #expect(SchemaGrammarError.unsupportedKeyword("multipleOf", path: "#/properties/n").description
      == "the JSON Schema keyword 'multipleOf' at #/properties/n is not supported for guided generation")
    #expect(SchemaGrammarError.invalidPattern("(a)\\1", path: "#/pattern", reason: "backreferences are not supported").description
      == "the pattern '(a)\\1' at #/pattern cannot be used for guided generation: backreferences are not supported")
  }

  @Test func annotationsAreIgnored() throws {
    let annotated: JSONValue = [
      "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "title": "T", "description": "D",
      "default": 1, "examples": [1], "$comment": "c", "deprecated": false, "readOnly": true, "writeOnly": false,
      "type": "integer", "minimum": 1, "maximum": 3,
    ]
    #expect(try compiler.compile(annotated) == compiler.compile(["type": "integer", "minimum": 1, "maximum": 3]))
  }
}
