import CLlama
import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Compiled schemas run through llama.cpp's real grammar engine with SmolLM2's vocabulary: valid
/// JSON is accepted token by token up to the end, invalid JSON is rejected somewhere, and
/// ``JSONSchemaValidator`` agrees with the grammar on every instance.
@Suite struct LlamaGrammarTests {
  /// The model's weights, loaded once for all tests (only the vocabulary is used).
  static let weights: LlamaModelWeights? = try? LlamaModelWeights(path: TestModel.path)

  static func requireWeights() throws -> LlamaModelWeights {
    try #require(weights, "the test model is missing at \(TestModel.path): run scripts/bootstrap")
  }

  /// What happened when the grammar was fed a text token by token.
  enum Outcome: Equatable {
    case accepted
    /// Every token was allowed, but the grammar cannot end here.
    case incomplete
    case rejected(token: Int)
  }

  static func feed(_ text: String, to grammar: LlamaGrammar, weights: LlamaModelWeights) throws -> Outcome {
    let tokens = try weights.tokenize(text, addSpecial: false, parseSpecial: false)
    for (index, token) in tokens.enumerated() where !grammar.accept(token) {
      return .rejected(token: index)
    }
    return grammar.isEndAllowed ? .accepted : .incomplete
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: JSONValue
    var whitespace: JSONSchemaGrammarCompiler.WhitespaceStyle = .compact
    /// Valid for the schema, and the grammar accepts them.
    let valid: [String]
    /// Invalid for the schema: the grammar rejects them, and the validator finds a violation.
    let invalid: [String]
    /// Not JSON at all: the grammar rejects them.
    var malformed: [String] = []
    /// Valid for the schema but outside what the grammar generates (property order, whitespace,
    /// number spellings): the grammar rejects them, by design.
    var narrowed: [String] = []

    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "nested objects",
      schema: [
        "type": "object",
        "properties": [
          "name": ["type": "string", "minLength": 1],
          "age": ["type": "integer", "minimum": 0, "maximum": 150],
          "address": [
            "type": "object",
            "properties": ["street": ["type": "string"], "zip": ["type": "string", "pattern": "^\\d{5}$"]],
            "required": ["street", "zip"],
          ],
        ],
        "required": ["name", "age", "address"],
      ],
      valid: [#"{"name":"Ada","age":36,"address":{"street":"1 Main St","zip":"75001"}}"#,
              #"{"name":"Zoë \"Z\"","age":0,"address":{"street":"","zip":"00000"}}"#],
      invalid: [#"{"name":"Ada","age":151,"address":{"street":"x","zip":"75001"}}"#,
                #"{"name":"Ada","age":36,"address":{"street":"x","zip":"7500"}}"#,
                #"{"name":"Ada","age":36}"#,
                #"{"name":"","age":36,"address":{"street":"x","zip":"75001"}}"#],
      narrowed: [#"{"age":36,"name":"Ada","address":{"street":"x","zip":"75001"}}"#,
                 #"{"name": "Ada","age":36,"address":{"street":"x","zip":"75001"}}"#,
                 #"{"name":"Ada","age":36,"address":{"street":"x","zip":"75001"},"extra":1}"#]),
    Case(
      name: "array of enum strings with 1...2 items",
      schema: ["type": "array", "items": ["type": "string", "enum": ["red", "green", "blue"]], "minItems": 1, "maxItems": 2],
      valid: [#"["red"]"#, #"["green","blue"]"#, #"["red","red"]"#],
      invalid: ["[]", #"["red","green","blue"]"#, #"["yellow"]"#, #""red""#],
      malformed: [#"["red",]"#, #"["red""#]),
    Case(
      name: "enum of mixed values",
      schema: ["enum": ["red", 1, true, nil, ["k": [1, 2]], 2.5]],
      valid: [#""red""#, "1", "true", "null", #"{"k":[1,2]}"#, "2.5"],
      invalid: [#""blue""#, "2", "false", #"{"k":[1]}"#, "25"],
      narrowed: ["1.0"]),
    Case(
      name: "all properties optional",
      schema: ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "string"], "c": ["type": "boolean"]]],
      valid: ["{}", #"{"a":1}"#, #"{"b":"x"}"#, #"{"c":true}"#, #"{"a":1,"c":false}"#, #"{"b":"x","c":true}"#,
              #"{"a":-1,"b":"","c":true}"#],
      invalid: [#"{"a":"1"}"#, #"{"b":false}"#],
      malformed: [#"{"a":1,}"#, #"{,"a":1}"#, #"{"a":1"c":true}"#],
      narrowed: [#"{"c":true,"a":1}"#, #"{"d":1}"#]),
    Case(
      name: "a required property between optional ones",
      schema: [
        "type": "object", "propertyOrdering": ["a", "b", "c"], "required": ["b"],
        "properties": ["a": ["type": "string"], "b": ["type": "integer"], "c": ["type": "null"]],
      ],
      valid: [#"{"b":1}"#, #"{"a":"x","b":1}"#, #"{"b":1,"c":null}"#, #"{"a":"x","b":1,"c":null}"#],
      invalid: [#"{"a":"x"}"#, "{}", #"{"c":null}"#, #"{"a":"x","c":null}"#]),
    Case(
      name: "integer range across zero",
      schema: ["type": "integer", "minimum": -15, "maximum": 42],
      valid: ["-15", "-9", "-10", "0", "7", "10", "39", "42"],
      invalid: ["-16", "43", "100", "4.5", "-150"],
      malformed: ["01", "-", "-01"],
      narrowed: ["-0", "4.0", "1e1"]),
    Case(
      name: "integer with exclusive bounds",
      schema: ["type": "integer", "exclusiveMinimum": 5, "exclusiveMaximum": 1000],
      valid: ["6", "99", "100", "999"],
      invalid: ["5", "1000", "-1", "0", "1001"]),
    Case(
      name: "integer bounded on one side",
      schema: ["type": "integer", "maximum": -3],
      valid: ["-3", "-4", "-10", "-1234567"],
      invalid: ["-2", "0", "3"]),
    Case(
      name: "number between 0 and 1",
      schema: ["type": "number", "minimum": 0, "maximum": 1],
      valid: ["0", "0.5", "1", "1.0", "1.000", "0.999", "0.0"],
      invalid: ["1.5", "1.01", "-0.1", "2", "-1"],
      malformed: ["00.5", "1.", ".5"],
      narrowed: ["5e-1", "-0"]),
    Case(
      name: "number with fractional exclusive bounds",
      schema: ["type": "number", "exclusiveMinimum": -2.5, "exclusiveMaximum": 0.75],
      valid: ["-2.49", "-2.4999", "-1", "0", "0.7", "0.7499", "-0.001", "0.749999999999999"],
      invalid: ["-2.5", "-2.50", "0.75", "0.750", "0.8", "-3", "1"]),
    Case(
      name: "number with a strict fractional lower bound",
      schema: ["type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 0.75],
      valid: ["0.50001", "0.500000000000001", "0.6", "0.7499", "0.74"],
      invalid: ["0.5", "0.500", "0.75", "0.4", "1", "0"]),
    Case(
      name: "optional properties follow the required ones, by name",
      schema: [
        "type": "object", "required": ["zeta", "mu"],
        "properties": ["alpha": ["type": "null"], "mu": ["type": "null"], "omega": ["type": "null"], "zeta": ["type": "null"]],
      ],
      valid: [#"{"zeta":null,"mu":null}"#, #"{"zeta":null,"mu":null,"alpha":null}"#, #"{"zeta":null,"mu":null,"alpha":null,"omega":null}"#,
              #"{"zeta":null,"mu":null,"omega":null}"#],
      invalid: [#"{"zeta":null}"#, #"{"mu":null,"alpha":null}"#],
      narrowed: [#"{"mu":null,"zeta":null}"#, #"{"zeta":null,"mu":null,"omega":null,"alpha":null}"#, #"{"alpha":null,"zeta":null,"mu":null}"#]),
    Case(
      name: "pattern",
      schema: ["type": "string", "pattern": "^[A-Z]{2}-\\d{3}(-[a-z]+)?$"],
      valid: [#""AB-123""#, #""XY-000-abc""#],
      invalid: [#""ab-123""#, #""AB-12""#, #""AB-1234""#, #""AB-123-""#, #""AB-123-A""#]),
    Case(
      name: "pattern with quotes, backslashes and a negated class",
      schema: ["type": "string", "pattern": "^\"[^\"\\\\]*\"\\\\n?$"],
      valid: [#""\"abc\"\\""#, #""\"\"\\n""#, #""\"a b\tc\"\\""#],
      invalid: [#""\"ab\"c\"\\""#, #""abc""#, #""\"abc\"""#]),
    Case(
      name: "formats",
      schema: [
        "type": "object",
        "properties": ["d": ["type": "string", "format": "date"], "t": ["type": "string", "format": "time"],
                       "dt": ["type": "string", "format": "date-time"], "u": ["type": "string", "format": "uuid"]],
        "required": ["d", "t", "dt", "u"],
      ],
      valid: [#"{"d":"2024-02-29","t":"13:45:00Z","dt":"2000-02-29T23:59:59.123+02:00","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
              #"{"d":"1999-12-31","t":"00:00:00-05:30","dt":"2023-06-30T12:00:00Z","u":"ABCDEF01-2345-6789-ABCD-EF0123456789"}"#],
      invalid: [#"{"d":"2023-02-29","t":"13:45:00Z","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"1900-02-29","t":"13:45:00Z","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"2024-04-31","t":"13:45:00Z","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"2024-01-01","t":"24:00:00Z","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"2024-01-01","t":"12:00:00","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"2024-01-01","t":"12:00:00Z","dt":"2023-06-30 12:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000"}"#,
                #"{"d":"2024-01-01","t":"12:00:00Z","dt":"2023-06-30T12:00:00Z","u":"123e4567-e89b-12d3-a456-42661417400"}"#],
      narrowed: [#"{"d":"2024-01-01","t":"23:59:60Z","dt":"2023-06-30t12:00:00z","u":"123e4567-e89b-12d3-a456-426614174000"}"#]),
    Case(
      name: "recursive $ref",
      schema: [
        "$defs": ["Node": [
          "type": "object",
          "properties": ["value": ["type": "integer"], "children": ["type": "array", "items": ["$ref": "#/$defs/Node"], "maxItems": 2]],
          "required": ["value"],
        ]],
        "$ref": "#/$defs/Node",
      ],
      valid: [#"{"value":1}"#, #"{"value":1,"children":[]}"#, #"{"value":1,"children":[{"value":2,"children":[{"value":3}]},{"value":4}]}"#],
      invalid: [#"{"value":1,"children":[{"value":2},{"value":3},{"value":4}]}"#, #"{"value":1,"children":[{}]}"#, #"{"children":[]}"#]),
    Case(
      name: "anyOf",
      schema: ["anyOf": [["type": "string", "maxLength": 3], ["type": "integer", "minimum": 0], ["type": "null"]]],
      valid: [#""abc""#, #""""#, "7", "0", "null"],
      invalid: [#""abcd""#, "-1", "true", "1.5"]),
    Case(
      name: "string lengths count escapes as one character",
      schema: ["type": "string", "minLength": 2, "maxLength": 4],
      valid: [#""ab""#, #""a\nb""#, #""\u00e9t\u00e9!""#, #""été!""#, #""a\"""#],
      invalid: [#""a""#, #""abcde""#, #""\n""#, #""a\u00e9xyz""#]),
    Case(
      name: "nullable and type arrays",
      schema: [
        "type": "object",
        "properties": ["a": ["type": ["string", "null"]], "b": ["type": "integer", "nullable": true]],
        "required": ["a", "b"],
      ],
      valid: [#"{"a":null,"b":null}"#, #"{"a":"x","b":3}"#],
      invalid: [#"{"a":1,"b":null}"#, #"{"a":null,"b":"3"}"#, #"{"a":null}"#]),
    Case(
      name: "prefixItems without more items",
      schema: ["type": "array", "prefixItems": [["type": "string"], ["type": "integer"]], "items": false],
      valid: ["[]", #"["a"]"#, #"["a",1]"#],
      invalid: [#"["a","b"]"#, #"["a",1,2]"#, "[1]"]),
    Case(
      name: "any JSON value",
      schema: [:],
      valid: [#"{"a":[1,{"b":null}],"c":"d"}"#, #""x""#, "1.5e3", "[]", "{}", "-0.25", "true"],
      invalid: [],
      malformed: [#"{"a":}"#, "[1,]", "tru", "01", #"{"a" 1}"#, "'a'", "[1 2]"]),
    Case(
      name: "map of integers",
      schema: ["type": "object", "additionalProperties": ["type": "integer"]],
      valid: ["{}", #"{"x":1}"#, #"{"x":1,"y":-2}"#],
      invalid: [#"{"x":"a"}"#, #"{"x":1.5}"#, "[]"]),
    Case(
      name: "tagged union with oneOf and const",
      schema: ["oneOf": [
        ["type": "object", "properties": ["kind": ["const": "circle"], "r": ["type": "number", "minimum": 0]], "required": ["kind", "r"]],
        ["type": "object", "properties": ["kind": ["const": "square"], "side": ["type": "integer", "minimum": 1]], "required": ["kind", "side"]],
      ]],
      valid: [#"{"kind":"circle","r":2.5}"#, #"{"kind":"square","side":3}"#],
      invalid: [#"{"kind":"circle","side":3}"#, #"{"kind":"triangle","r":1}"#, #"{"kind":"square","side":0}"#, #"{"kind":"circle","r":-1}"#]),
    Case(
      name: "flexible whitespace",
      schema: ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "array", "items": ["type": "boolean"]]], "required": ["a", "b"]],
      whitespace: .flexible(maximumIndent: 4),
      valid: [#"{"a":1,"b":[]}"#, "{\n  \"a\": 1,\n  \"b\": [ true, false ]\n}", "{ \"a\" : 2 , \"b\" : [\n    true\n] }"],
      invalid: [#"{"a":1}"#],
      narrowed: ["{\"a\":1,\"b\":[]} ", "{  \"a\":1,\"b\":[]}", "{\n\n\"a\":1,\"b\":[]}", "{\n      \"a\": 1, \"b\": []}"]),
    Case(
      name: "long strings use blocks",
      schema: ["type": "string", "maxLength": 2500],
      valid: [#""""#, "\"" + String(repeating: "ab", count: 1250) + "\""],
      invalid: ["\"" + String(repeating: "ab", count: 1250) + "c\""]),
  ]

  @Test(arguments: cases)
  func grammarAndValidatorAgree(_ testCase: Case) throws {
    let weights = try Self.requireWeights()
    let compiler = JSONSchemaGrammarCompiler(whitespace: testCase.whitespace)
    let grammar = try LlamaGrammar(gbnf: try compiler.compile(testCase.schema), vocab: weights.vocab)
    let validator = JSONSchemaValidator(schema: testCase.schema)

    for text in testCase.valid {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) == .accepted, "should accept \(text)")
      let value = try JSONValue(jsonString: text)
      #expect(validator.validate(value).isEmpty, "\(text) should be valid: \(validator.validate(value))")
    }
    for text in testCase.invalid {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) != .accepted, "should reject \(text)")
      let value = try JSONValue(jsonString: text)
      #expect(!validator.validate(value).isEmpty, "\(text) should have a violation")
    }
    for text in testCase.malformed {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) != .accepted, "should reject \(text)")
    }
    for text in testCase.narrowed {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) != .accepted, "the grammar does not generate \(text)")
      let value = try JSONValue(jsonString: text)
      #expect(validator.validate(value).isEmpty, "\(text) should be valid")
    }
  }

  /// Mutually recursive `@Generable` types: their schema refers back through `$defs`, compiles
  /// to a recursive grammar, and the grammar and the validator agree on nested values.
  @Test func mutuallyRecursiveGenerableTypes() throws {
    let weights = try Self.requireWeights()
    let schema = Folder.generationSchema.jsonSchema
    let grammar = try LlamaGrammar(gbnf: try JSONSchemaGrammarCompiler().compile(schema), vocab: weights.vocab)
    let validator = JSONSchemaValidator(schema: schema)
    let valid = [
      #"{"name":"docs","files":[]}"#,
      #"{"name":"docs","files":[{"name":"a","copiedFrom":{"name":"old","files":[{"name":"b"}]}},{"name":"c"}]}"#,
    ]
    let invalid = [
      #"{"name":"docs","files":[{"name":"a"},{"name":"b"},{"name":"c"}]}"#,            // more than 2 files
      #"{"name":"docs","files":[{"name":"a","copiedFrom":{"name":"old","files":"x"}}]}"#, // files is not a list
    ]
    for text in valid {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) == .accepted, "should accept \(text)")
      #expect(validator.validate(try JSONValue(jsonString: text)).isEmpty, "\(text) should be valid")
    }
    for text in invalid {
      grammar.reset()
      #expect(try Self.feed(text, to: grammar, weights: weights) != .accepted, "should reject \(text)")
      #expect(!validator.validate(try JSONValue(jsonString: text)).isEmpty, "\(text) should have a violation")
    }
  }

  @Test func embeddedRulesCombineIntoOneGrammar() throws {
    let weights = try Self.requireWeights()
    let compiler = JSONSchemaGrammarCompiler()
    let time = try compiler.compileRule(["type": "object", "properties": ["zone": ["type": "string"]], "required": ["zone"]], named: "args-get-time")
    let add = try compiler.compileRule(
      ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]], "required": ["a", "b"]], named: "args-add")
    let root = #"root ::= "<tool_call>\n{\"name\": " ("\"get_time\", \"arguments\": " "#
      + time.ruleName + #" | "\"add\", \"arguments\": " "# + add.ruleName + #") "}\n</tool_call>""#
    let grammar = try LlamaGrammar(gbnf: [root, time.rules, add.rules].joined(separator: "\n"), vocab: weights.vocab)
    let call = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\":1,\"b\":-2}}\n</tool_call>"
    #expect(try Self.feed(call, to: grammar, weights: weights) == .accepted)
    grammar.reset()
    let wrong = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"zone\":\"UTC\"}}\n</tool_call>"
    #expect(try Self.feed(wrong, to: grammar, weights: weights) != .accepted)
  }

  // MARK: The wrapper

  @Test func invalidGrammarsThrow() throws {
    let weights = try Self.requireWeights()
    for text in ["root ::= \"a", "root ::= undefined-rule", "start ::= \"a\"", "root ::= root \"a\"", ""] {
      #expect(throws: OnDeviceModelError.self, "\(text)") { try LlamaGrammar(gbnf: text, vocab: weights.vocab) }
    }
  }

  @Test func acceptRefusesTokensTheGrammarForbids() throws {
    let weights = try Self.requireWeights()
    let grammar = try LlamaGrammar(gbnf: #"root ::= "yes" | "no""#, vocab: weights.vocab)
    let maybe = try weights.tokenize("maybe", addSpecial: false, parseSpecial: false)
    #expect(!grammar.allows(maybe[0]))
    #expect(!grammar.accept(maybe[0]))
    #expect(!grammar.isEndAllowed)
    let end = llama_vocab_eos(weights.vocab)
    #expect(!grammar.accept(end), "an end token is refused before the grammar is complete")
    #expect(try Self.feed("no", to: grammar, weights: weights) == .accepted)
    #expect(grammar.accept(end), "an end token is fine once complete, and changes nothing")
    #expect(grammar.isFinished(vocabularySize: weights.vocabularySize))
    grammar.reset()
    #expect(!grammar.isEndAllowed)
    #expect(try Self.feed("yes", to: grammar, weights: weights) == .accepted)
  }

  @Test func unfinishedGrammarIsNotFinished() throws {
    let weights = try Self.requireWeights()
    let grammar = try LlamaGrammar(gbnf: #"root ::= "a" "b"?"#, vocab: weights.vocab)
    #expect(try Self.feed("a", to: grammar, weights: weights) == .accepted)
    #expect(!grammar.isFinished(vocabularySize: weights.vocabularySize), "a 'b' may still follow")
  }

  @Test func bestAllowedTokenSkipsForbiddenFavourites() throws {
    let weights = try Self.requireWeights()
    let grammar = try LlamaGrammar(gbnf: #"root ::= "true" | "false""#, vocab: weights.vocab)
    let tokenTrue = try weights.tokenize("true", addSpecial: false, parseSpecial: false)
    let tokenFalse = try weights.tokenize("false", addSpecial: false, parseSpecial: false)
    let tokenHello = try weights.tokenize("hello", addSpecial: false, parseSpecial: false)
    var logits = [Float](repeating: 0, count: weights.vocabularySize)
    logits[Int(tokenHello[0])] = 10
    logits[Int(tokenFalse[0])] = 5
    logits[Int(tokenTrue[0])] = 4
    let best = logits.withUnsafeBufferPointer { grammar.bestAllowedToken(logits: $0.baseAddress!, vocabularySize: $0.count) }
    #expect(best == tokenFalse[0])
    logits[Int(tokenTrue[0])] = 20
    let favourite = logits.withUnsafeBufferPointer { grammar.bestAllowedToken(logits: $0.baseAddress!, vocabularySize: $0.count) }
    #expect(favourite == tokenTrue[0])
  }

  @Test func constrainMasksTheCandidateArray() throws {
    let weights = try Self.requireWeights()
    let grammar = try LlamaGrammar(gbnf: #"root ::= [0-9]+"#, vocab: weights.vocab)
    var candidates = (0..<weights.vocabularySize).map { llama_token_data(id: llama_token($0), logit: 1, p: 0) }
    candidates.withUnsafeMutableBufferPointer { buffer in
      var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
      grammar.constrain(&array)
    }
    let allowed = candidates.filter { $0.logit.isFinite }
    #expect(!allowed.isEmpty)
    #expect(allowed.count < 2000)
    for candidate in allowed {
      let text = String(decoding: weights.bytes(of: candidate.id), as: UTF8.self)
      #expect(!text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber), "\(text)")
    }
  }
}

@Generable(description: "A folder")
private struct Folder {
  var name: String
  @Guide(.maximumCount(2)) var files: [File]
}

@Generable(description: "A file")
private struct File {
  var name: String
  var copiedFrom: Folder?
}
