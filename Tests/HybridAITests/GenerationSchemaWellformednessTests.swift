import HybridAI
import Testing

@Suite("A schema's well-formedness")
struct GenerationSchemaWellformednessTests {
  @Test("well-formed schemas, from a @Generable type to keywords JSON Schema leaves to others", arguments: [
    #"true"#,
    #"{}"#,
    #"{"type": "object", "properties": {"a": {"type": ["string", "null"], "minLength": 1}}, "required": ["a"]}"#,
    #"{"type": "array", "items": [{"type": "string"}, true], "prefixItems": [{"enum": [1, "x"]}]}"#,
    ##"{"anyOf": [{"$ref": "#/$defs/n"}], "$defs": {"n": {"type": "integer", "x-custom": {"anything": 1}}}}"##,
  ])
  func wellFormed(_ text: String) throws {
    #expect(try GenerationSchema(jsonSchemaText: text).malformation == nil)
  }

  @Test("what is not a schema is named by its place", arguments: [
    (#"{"type": "banana"}"#, #"`/type` holds "banana", which is not a JSON Schema type"#),
    (#"{"properties": {"a": 3}}"#, "`/properties/a` is a number, not a schema (an object or a boolean)"),
    (#"{"properties": "a"}"#, "`/properties` is a string, not an object of schemas"),
    (#"{"required": "a"}"#, "`/required` is not an array of property names"),
    (#"{"items": {"anyOf": {"type": "string"}}}"#, "`/items/anyOf` is an object, not an array of schemas"),
    (#"{"maxLength": "10"}"#, "`/maxLength` is a string, not a number"),
    (#"{"enum": "a"}"#, "`/enum` is a string, not an array"),
    (#"{"pattern": 5}"#, "`/pattern` is a number, not a string"),
  ])
  func malformed(_ text: String, _ reason: String) throws {
    #expect(try GenerationSchema(jsonSchemaText: text).malformation == reason)
  }

  @Test("a schema that is not an object or a boolean")
  func notAnObject() {
    #expect(GenerationSchema(jsonSchema: "a").malformation == "the schema is a string, not a schema (an object or a boolean)")
  }
}
