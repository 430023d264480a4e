import HybridAI
import Testing

/// GeneratedContent's JSON parser, complete and partial, and its writer.
@Suite("GeneratedContent")
struct GeneratedContentTests {
  private func string(_ value: String, complete: Bool = true) -> GeneratedContent {
    GeneratedContent(kind: .string(value), isComplete: complete)
  }

  private func number(_ value: Double) -> GeneratedContent { GeneratedContent(kind: .number(value)) }

  private func object(_ pairs: [(String, GeneratedContent)], complete: Bool = true) -> GeneratedContent {
    GeneratedContent(kind: .structure(properties: Dictionary(uniqueKeysWithValues: pairs), orderedKeys: pairs.map(\.0)),
                     isComplete: complete)
  }

  private func array(_ elements: [GeneratedContent], complete: Bool = true) -> GeneratedContent {
    GeneratedContent(kind: .array(elements), isComplete: complete)
  }

  private func isInvalidJSON(_ text: String) -> Bool {
    do {
      _ = try GeneratedContent(json: text)
      return false
    } catch {
      if case .invalidJSON = error { return true }
      return false
    }
  }

  // MARK: - Complete JSON

  @Test("parses every kind of value, keeping the order of object keys")
  func completeValues() throws {
    let content = try GeneratedContent(json: #" {"z": null, "a": [true, false, -1.5e2, 0], "m": {"k": "v"}, "e": {}, "l": []} "#)
    #expect(content.isComplete)
    #expect(content.propertyNames == ["z", "a", "m", "e", "l"])
    #expect(content == object([
      ("z", GeneratedContent(kind: .null)),
      ("a", array([GeneratedContent(kind: .bool(true)), GeneratedContent(kind: .bool(false)), number(-150), number(0)])),
      ("m", object([("k", string("v"))])),
      ("e", object([])),
      ("l", array([])),
    ]))
  }

  @Test("decodes escapes, including surrogate pairs")
  func escapes() throws {
    let content = try GeneratedContent(json: #""q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00""#)
    #expect(content == string("q\" b\\ s/ \u{08}\u{0C}\n\r\t é 😀"))
  }

  @Test("the writer's JSON parses back to the same content")
  func writerRoundTrip() throws {
    let text = #"{"s":"a\"b\\c\nd\u0001","n":[1,-2.5,1e-7,12345678901234],"b":true,"z":null,"o":{"k":[]}}"#
    let content = try GeneratedContent(json: text)
    #expect(try GeneratedContent(json: content.jsonString) == content)
    #expect(content.jsonString.hasPrefix(#"{"s":"a\"b\\c\nd\u0001","n":[1,-2.5,"#))
  }

  @Test("rejects text that is not JSON", arguments: [
    "", "   ", "{", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "{a: 1}", "01", "1.", "-", "+1", ".5", "1e", "tru", "nul", "True",
    "[1 2]", "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\u+123\"", "\"\\u-123\"",
    "\"\\ud800\"", "\"\\udc00\"", "\"tab\tinside\"", "1 2", "{} x", "[", "[\"a\",",
  ])
  func invalidJSON(text: String) {
    #expect(isInvalidJSON(text), "\(text) should be invalid")
  }

  @Test("invalid JSON errors carry the text and a reason")
  func invalidJSONError() {
    #expect(throws: GeneratedContentError.invalidJSON("[1,]", reason: "unexpected character at byte 3")) {
      try GeneratedContent(json: "[1,]")
    }
  }

  // MARK: - Partial JSON

  @Test("text with no value yet, or that is not the start of JSON, is nil")
  func partialNothing() {
    #expect(GeneratedContent(partialJSON: "") == nil)
    #expect(GeneratedContent(partialJSON: "  \n") == nil)
    #expect(GeneratedContent(partialJSON: "12") == nil)   // a number that may still grow
    #expect(GeneratedContent(partialJSON: "tr") == nil)
    #expect(GeneratedContent(partialJSON: "x") == nil)
    #expect(GeneratedContent(partialJSON: "{\"a\": 1,,") == nil)
    #expect(GeneratedContent(partialJSON: "[1 2") == nil)
    #expect(GeneratedContent(partialJSON: "{\"a\": 1} x") == nil)
    #expect(GeneratedContent(partialJSON: #""a\uZ"#) == nil)     // not hex: invalid already
    #expect(GeneratedContent(partialJSON: #""a\u0+"#) == nil)
  }

  @Test("an open string is closed and marked incomplete")
  func partialString() {
    #expect(GeneratedContent(partialJSON: #""hel"#) == string("hel", complete: false))
    #expect(GeneratedContent(partialJSON: #"""#) == string("", complete: false))
    #expect(GeneratedContent(partialJSON: #""done""#) == string("done"))
  }

  @Test("a string cut inside an escape leaves the escape out", arguments: [
    (#""ab\"#, "ab"), (#""ab\u"#, "ab"), (#""ab\u00"#, "ab"), (#""ab\u00e"#, "ab"), (#""ab\u00e9"#, "abé"),
    (#""a\ud83d"#, "a"), (#""a\ud83d\"#, "a"), (#""a\ud83d\ude0"#, "a"), (#""a\ud83d\ude00"#, "a😀"), (#""a\n"#, "a\n"),
  ])
  func partialEscapes(text: String, expected: String) {
    #expect(GeneratedContent(partialJSON: text) == string(expected, complete: false))
  }

  @Test("numbers and literals at the end are left out until they end")
  func partialNumbersAndLiterals() {
    #expect(GeneratedContent(partialJSON: "[1, 2") == array([number(1)], complete: false))
    #expect(GeneratedContent(partialJSON: "[1, 2 ") == array([number(1), number(2)], complete: false))
    #expect(GeneratedContent(partialJSON: "[1, -") == array([number(1)], complete: false))
    #expect(GeneratedContent(partialJSON: "[1, 2.") == array([number(1)], complete: false))
    #expect(GeneratedContent(partialJSON: "[1, 2]") == array([number(1), number(2)]))
    #expect(GeneratedContent(partialJSON: "[tr") == array([], complete: false))
    #expect(GeneratedContent(partialJSON: "[true") == array([GeneratedContent(kind: .bool(true))], complete: false))
    #expect(GeneratedContent(partialJSON: "{\"a\": nu") == object([], complete: false))
    #expect(GeneratedContent(partialJSON: "{\"a\": null") == object([("a", GeneratedContent(kind: .null))], complete: false))
  }

  @Test("open objects keep their complete members and the open one")
  func partialObjects() {
    #expect(GeneratedContent(partialJSON: "{") == object([], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"na"#) == object([], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"name""#) == object([], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"name": "#) == object([], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"name": "Ad"#) == object([("name", string("Ad", complete: false))], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"name": "Ada","#) == object([("name", string("Ada"))], complete: false))
    #expect(GeneratedContent(partialJSON: #"{"name": "Ada", "age": 36}"#) == object([("name", string("Ada")), ("age", number(36))]))
  }

  @Test("nested arrays and objects: every open level is incomplete, closed ones are complete")
  func partialNesting() throws {
    let content = try #require(GeneratedContent(partialJSON: #"{"a": [[1, 2], [3, {"b": ["x", "y"#))
    #expect(!content.isComplete)
    guard case .structure(let properties, _) = content.kind, let outer = properties["a"],
          case .array(let lists) = outer.kind else {
      Issue.record("unexpected shape: \(content)")
      return
    }
    #expect(!outer.isComplete)
    #expect(lists.count == 2)
    #expect(lists[0] == array([number(1), number(2)]))
    #expect(lists[1] == array([number(3), object([("b", array([string("x"), string("y", complete: false)], complete: false))], complete: false)],
                              complete: false))
  }

  @Test("every prefix of a JSON text parses, never throwing, and the last is the whole value")
  func everyPrefix() throws {
    let text = #"{"title": "A \"quoted\" \u00e9 title 😀", "tags": ["x", "yz"], "n": -12.5e1, "ok": true, "none": null, "o": {"k": [1, {"d": 2}]}}"#
    let whole = try GeneratedContent(json: text)
    var previousKeys = 0
    for end in text.indices {
      let prefix = String(text[..<end])
      guard let content = GeneratedContent(partialJSON: prefix) else {
        #expect(prefix.isEmpty, "only the empty prefix has no value: \(prefix)")
        continue
      }
      #expect(!content.isComplete)
      #expect(content.propertyNames.count >= previousKeys)
      #expect(Array(whole.propertyNames.prefix(content.propertyNames.count)) == content.propertyNames)
      previousKeys = content.propertyNames.count
    }
    #expect(GeneratedContent(partialJSON: text) == whole)
  }

  // MARK: - Reading values

  @Test("value(forProperty:) reads typed properties, with nil for missing optionals")
  func typedProperties() throws {
    let content = try GeneratedContent(json: #"{"name": "Ada", "age": 36, "tags": ["a"], "nothing": null}"#)
    #expect(try content.value(String.self, forProperty: "name") == "Ada")
    #expect(try content.value(Int.self, forProperty: "age") == 36)
    #expect(try content.value([String].self, forProperty: "tags") == ["a"])
    #expect(try content.value(String?.self, forProperty: "missing") == nil)
    #expect(try content.value(String?.self, forProperty: "nothing") == nil)
    #expect(throws: GeneratedContentError.missingProperty("missing")) { try content.value(String.self, forProperty: "missing") }
    #expect(throws: GeneratedContentError.inProperty("age", .typeMismatch(expected: "a string", found: GeneratedContent(kind: .number(36))))) {
      try content.value(String.self, forProperty: "age")
    }
    #expect(throws: GeneratedContentError.inProperty("age", .invalidValue(GeneratedContent(kind: .number(36.5)), reason: "not an integer that fits Int8"))) {
      _ = try GeneratedContent(json: #"{"age": 36.5}"#).value(Int8.self, forProperty: "age")
    }
  }

  @Test("integers must be whole and fit their type")
  func integers() throws {
    #expect(try Int8(GeneratedContent(json: "127")) == 127)
    #expect(throws: GeneratedContentError.self) { try Int8(GeneratedContent(json: "128")) }
    #expect(throws: GeneratedContentError.self) { try UInt(GeneratedContent(json: "-1")) }
    #expect(throws: GeneratedContentError.self) { try Int(GeneratedContent(json: "1.5")) }
  }
}
