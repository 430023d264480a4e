import Foundation
import HybridAI
import Testing

@Suite struct JSONSchemaValidatorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: JSONValue
    let valid: [JSONValue]
    let invalid: [JSONValue]
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "types", schema: ["type": ["integer", "string"]],
         valid: [1, -3, 2.0, "x"], invalid: [1.5, true, nil, [1], ["a": 1]]),
    Case(name: "number", schema: ["type": "number"], valid: [1, 1.5, -0.0], invalid: ["1", false]),
    Case(name: "null and boolean", schema: ["type": ["null", "boolean"]], valid: [nil, true, false], invalid: [0, ""]),
    Case(name: "enum", schema: ["enum": ["a", 1, nil, ["k": [true]]]],
         valid: ["a", 1, 1.0, nil, ["k": [true]]], invalid: ["b", 2, ["k": [false]], [1]]),
    Case(name: "const", schema: ["const": ["x": 1]], valid: [["x": 1]], invalid: [["x": 2], ["x": 1, "y": 2]]),
    Case(name: "integer bounds", schema: ["type": "integer", "minimum": -2, "exclusiveMaximum": 5],
         valid: [-2, 0, 4], invalid: [-3, 5, 6]),
    Case(name: "number bounds", schema: ["type": "number", "exclusiveMinimum": 0, "maximum": 1],
         valid: [0.0001, 0.5, 1], invalid: [0, -1, 1.0001]),
    Case(name: "draft-4 boolean exclusive bounds", schema: ["minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": false],
         valid: [0.5, 1], invalid: [0, 2]),
    Case(name: "string lengths count code points", schema: ["type": "string", "minLength": 2, "maxLength": 3],
         valid: ["ab", "été", "a😀", "e\u{301}x"], invalid: ["a", "abcd", "😀", "é\u{301}xy"]),
    Case(name: "object", schema: [
      "type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "string"]], "required": ["a"],
      "additionalProperties": false,
    ], valid: [["a": 1], ["a": 1, "b": "x"]], invalid: [["b": "x"], ["a": "1"], ["a": 1, "c": 2], [1]]),
    Case(name: "additional properties by schema", schema: ["type": "object", "additionalProperties": ["type": "integer"]],
         valid: [[:], ["x": 1, "y": 2]], invalid: [["x": "a"]]),
    Case(name: "extra properties are allowed by default", schema: ["properties": ["a": ["type": "integer"]]],
         valid: [["a": 1, "z": "anything"], [:], "not an object"], invalid: [["a": "x"]]),
    Case(name: "arrays", schema: ["type": "array", "items": ["type": "string"], "minItems": 1, "maxItems": 2],
         valid: [["a"], ["a", "b"]], invalid: [[], ["a", "b", "c"], [1]]),
    Case(name: "prefixItems", schema: ["type": "array", "prefixItems": [["type": "string"], ["type": "integer"]], "items": false],
         valid: [[], ["a"], ["a", 1]], invalid: [[1], ["a", "b"], ["a", 1, 2]]),
    Case(name: "anyOf", schema: ["anyOf": [["type": "string"], ["type": "integer", "minimum": 0]]],
         valid: ["x", 3], invalid: [-1, nil]),
    Case(name: "oneOf needs exactly one match", schema: ["oneOf": [["type": "integer"], ["type": "number", "minimum": 10]]],
         valid: [3, 10.5], invalid: [12, 1.5]),
    Case(name: "allOf", schema: ["allOf": [["type": "integer"], ["minimum": 3]]], valid: [3, 10], invalid: [2, 3.5]),
    Case(name: "nullable", schema: ["type": "integer", "nullable": true, "minimum": 1], valid: [nil, 1], invalid: [0, "1"]),
    Case(name: "recursive $ref", schema: [
      "$defs": ["List": ["type": "object", "properties": ["next": ["anyOf": [["$ref": "#/$defs/List"], ["type": "null"]]]],
                         "required": ["next"]]],
      "$ref": "#/$defs/List",
    ], valid: [["next": nil], ["next": ["next": ["next": nil]]]], invalid: [["next": ["next": 1]], [:]]),
    Case(name: "definitions and escaped pointers", schema: [
      "definitions": ["a/b": ["type": "string"], "c~d": ["type": "integer"]],
      "type": "array", "prefixItems": [["$ref": "#/definitions/a~1b"], ["$ref": "#/definitions/c~0d"]],
    ], valid: [["x", 1]], invalid: [[1, "x"]]),
    Case(name: "pattern matches the whole string", schema: ["type": "string", "pattern": "b+"],
         valid: ["b", "bbb"], invalid: ["abc", "ab", "bc", ""]),
    Case(name: "pattern alternation still matches the whole string", schema: ["pattern": "a|ab"],
         valid: ["a", "ab"], invalid: ["abc", "b"]),
    Case(name: "pattern anchors", schema: ["pattern": "^[a-z]+$"], valid: ["abc"], invalid: ["abc\n", "ab1"]),
    Case(name: "pattern classes follow ECMA-262", schema: ["pattern": "\\d\\w\\s."],
         valid: ["1a b", "9_\tz", "0Z\u{A0}é"], invalid: ["٣a b", "1é b", "1a\u{85}b", "1a b\n"]),
    Case(name: "pattern negated classes follow ECMA-262", schema: ["pattern": "\\D\\W\\S[^\\d]"],
         valid: ["aé!b", "٣ xy"], invalid: ["1 !b", "a_!b", "aé b", "aé!1"]),
    Case(name: "pattern literal braces and ICU set syntax", schema: ["pattern": "a{x}[&&:[]b{2}"],
         valid: ["a{x}&bb", "a{x}:bb", "a{x}[bb"], invalid: ["a{x}xbb", "a{x}&b"]),
    Case(name: "date", schema: ["type": "string", "format": "date"],
         valid: ["2024-02-29", "2000-02-29", "1999-12-31", "0000-02-29"],
         invalid: ["2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-1-01", "24-01-01", "2024-01-01T"]),
    Case(name: "time", schema: ["type": "string", "format": "time"],
         valid: ["13:45:00Z", "23:59:60Z", "00:00:00.5+02:00", "12:00:00-05:30", "08:15:00z"],
         invalid: ["24:00:00Z", "12:60:00Z", "12:00:61Z", "12:00:00", "12:00:00+2:00", "12:00:00.Z", "12:00:00+24:00"]),
    Case(name: "date-time", schema: ["type": "string", "format": "date-time"],
         valid: ["2024-02-29T13:45:00Z", "2024-02-29t13:45:00.123456+01:00"],
         invalid: ["2024-02-29 13:45:00Z", "2024-02-30T13:45:00Z", "2024-02-29T13:45Z"]),
    Case(name: "uuid", schema: ["type": "string", "format": "uuid"],
         valid: ["123e4567-e89b-12d3-a456-426614174000", "ABCDEF01-2345-6789-ABCD-EF0123456789"],
         invalid: ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "123e4567-e89b-12d3-a456-4266141740001"]),
    Case(name: "other formats are annotations", schema: ["type": "string", "format": "email"],
         valid: ["not an email"], invalid: [1]),
    Case(name: "formats only constrain strings", schema: ["format": "date"], valid: [1, nil], invalid: ["x"]),
    Case(name: "true and false schemas", schema: ["prefixItems": [true, false]], valid: [[1]], invalid: [[1, 2]]),
  ]

  @Test(arguments: cases)
  func validatesAsTheSchemaSays(_ testCase: Case) {
    let validator = JSONSchemaValidator(schema: testCase.schema)
    for value in testCase.valid {
      #expect(validator.validate(value).isEmpty, "\(value.jsonString): \(validator.validate(value))")
    }
    for value in testCase.invalid {
      #expect(!validator.validate(value).isEmpty, "\(value.jsonString) should be invalid")
    }
  }

  @Test func violationsSayWhereAndWhat() {
    let schema: JSONValue = [
      "type": "object",
      "properties": ["items": ["type": "array", "items": ["type": "object", "properties": ["n": ["type": "integer", "maximum": 3]]]]],
      "required": ["items", "name"],
    ]
    let violations = JSONSchemaValidator(schema: schema).validate(["items": [["n": 1], ["n": 4]]])
    #expect(violations == [
      JSONSchemaValidator.Violation(path: "#", message: "the required property 'name' is missing"),
      JSONSchemaValidator.Violation(path: "#/items/1/n", message: "4 is greater than the maximum 3"),
    ])
    #expect(violations[1].description == "#/items/1/n: 4 is greater than the maximum 3")
  }

  @Test func unsupportedKeywordsAreViolations() {
    let violations = JSONSchemaValidator(schema: ["type": "integer", "multipleOf": 2]).validate(4)
    #expect(violations == [JSONSchemaValidator.Violation(path: "#", message: "the schema keyword 'multipleOf' cannot be checked",
                                                         isUncheckedKeyword: true)])
    // Real violations are told apart from keywords the validator can't check.
    let both = JSONSchemaValidator(schema: ["type": "integer", "multipleOf": 2]).validate("x")
    #expect(both.filter(\.isUncheckedKeyword).count == 1 && both.filter { !$0.isUncheckedKeyword }.count == 1)
    #expect(JSONSchemaValidator(schema: ["title": "T", "description": "D", "examples": [1], "type": "integer"]).validate(4).isEmpty)
  }

  @Test func unresolvedReferencesAreViolations() {
    #expect(!JSONSchemaValidator(schema: ["$ref": "#/$defs/Missing"]).validate(1).isEmpty)
    #expect(!JSONSchemaValidator(schema: ["$ref": "https://example.com/x.json"]).validate(1).isEmpty)
  }

  @Test func selfReferenceWithoutProgressStops() {
    #expect(!JSONSchemaValidator(schema: ["$defs": ["A": ["$ref": "#/$defs/A"]], "$ref": "#/$defs/A"]).validate(1).isEmpty)
  }

  @Test func aValidatorWithoutSchemaTakesOneForEachCall() {
    let schema: JSONValue = ["$defs": ["N": ["type": "integer"]], "type": "array", "items": ["$ref": "#/$defs/N"]]
    let validator = JSONSchemaValidator()
    #expect(validator.validate([1, 2], against: schema).isEmpty)
    #expect(!validator.validate([1, "2"], against: schema).isEmpty)
    #expect(validator.validate("anything").isEmpty)
  }

  @Test func subschemasResolveReferencesInTheDocument() {
    let document: JSONValue = ["$defs": ["N": ["type": "integer"]], "properties": ["n": ["$ref": "#/$defs/N"]]]
    let validator = JSONSchemaValidator(schema: document)
    #expect(validator.validate(1, against: ["$ref": "#/$defs/N"]).isEmpty)
    #expect(!validator.validate("1", against: ["$ref": "#/$defs/N"]).isEmpty)
  }

  @Test func checkThrowsTheViolations() throws {
    let validator = JSONSchemaValidator(schema: ["type": "string"])
    try validator.check("ok")
    let error = try #require(throws: JSONSchemaValidator.ValidationError.self) { try validator.check(1) }
    #expect(error.violations.count == 1)
    #expect(error.description == "the value does not match the schema: #: 1 is not of type string")
  }

  @Test func invalidPatternsAreViolations() {
    #expect(!JSONSchemaValidator(schema: ["pattern": "(unclosed"]).validate("x").isEmpty)
  }
}
