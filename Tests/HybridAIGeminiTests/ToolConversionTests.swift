import Foundation
import HybridAI
import HybridAIGemini
import Testing

/// The wire types of function calling, and the server's direction: a Gemini request with function
/// declarations, tool config, function calls and responses, and response schemas becomes a
/// HybridAI request.
@Suite("Function calling wire types and request conversion")
struct ToolConversionTests {
  private func decode(_ text: String) throws -> GenerateContentRequest {
    try Gemini.JSON.decode(GenerateContentRequest.self, from: Data(text.utf8))
  }

  // MARK: - Wire types

  @Test("tools, toolConfig and function parts decode (camelCase or snake_case) and encode back")
  func wireRoundTrip() throws {
    let request = try decode("""
      {"contents": [
         {"role": "user", "parts": [{"text": "Weather?"}]},
         {"role": "model", "parts": [{"function_call": {"id": "a1", "name": "get_weather", "args": {"city": "Oslo"}},
                                      "thought_signature": "c2ln"}]},
         {"role": "user", "parts": [{"functionResponse": {"id": "a1", "name": "get_weather",
                                                          "response": {"result": "Rain"}, "willContinue": false}}]}],
       "tools": [{"function_declarations": [{"name": "get_weather", "description": "Weather",
                                             "parameters_json_schema": {"type": "object"},
                                             "response_json_schema": {"type": "string"}, "behavior": "BLOCKING"},
                                            {"name": "now", "parameters": {"type": "OBJECT", "properties": {}},
                                             "response": {"type": "STRING"}}]},
                 {"googleSearch": {}}],
       "tool_config": {"function_calling_config": {"mode": "any", "allowed_function_names": ["now"]},
                       "retrievalConfig": {"languageCode": "en"}}}
      """)
    let declarations = try #require(request.tools?.first?.functionDeclarations)
    #expect(declarations[0] == Gemini.FunctionDeclaration(
      name: "get_weather", description: "Weather", parametersJsonSchema: .object(["type": "object"]),
      responseJsonSchema: .object(["type": "string"]), behavior: "BLOCKING"))
    #expect(declarations[1].parameters == .object(["type": "OBJECT", "properties": .object([:])]))
    #expect(declarations[1].response == .object(["type": "STRING"]))
    #expect(request.tools?.last?.otherTools == ["googleSearch": .object([:])])
    #expect(request.toolConfig?.functionCallingConfig == Gemini.FunctionCallingConfig(mode: .any, allowedFunctionNames: ["now"]))
    #expect(request.toolConfig?.otherFields == ["retrievalConfig": .object(["languageCode": "en"])])
    let call = request.contents[1].parts[0]
    #expect(call.data == .functionCall(Gemini.FunctionCall(id: "a1", name: "get_weather", args: .object(["city": "Oslo"]))))
    #expect(call.thoughtSignature == "c2ln")
    #expect(request.contents[2].parts[0].data == .functionResponse(Gemini.FunctionResponse(
      id: "a1", name: "get_weather", response: .object(["result": "Rain"]), willContinue: false)))

    // Encoding writes camelCase, and decoding that gives the same request.
    let encoded = try JSONValue(encoding: request)
    #expect(encoded["toolConfig"] == .object([
      "functionCallingConfig": .object(["mode": "ANY", "allowedFunctionNames": .array(["now"])]),
      "retrievalConfig": .object(["languageCode": "en"]),
    ]))
    #expect(encoded["contents"]?.array?[1] == .object(["role": "model", "parts": .array([.object([
      "functionCall": .object(["id": "a1", "name": "get_weather", "args": .object(["city": "Oslo"])]),
      "thoughtSignature": "c2ln"])])]))
    #expect(encoded["tools"]?.array?[0]["functionDeclarations"]?.array?[0] == .object([
      "name": "get_weather", "description": "Weather", "parametersJsonSchema": .object(["type": "object"]),
      "responseJsonSchema": .object(["type": "string"]), "behavior": "BLOCKING"]))
    #expect(try Gemini.JSON.decode(GenerateContentRequest.self, from: Gemini.JSON.encode(request)) == request)
  }

  @Test("a thought signature rides on any part, text or function call, and on a part of its own")
  func signaturesOnAnyPart() throws {
    let content = Gemini.Content.model(
      Gemini.Part(.text("answer"), thoughtSignature: "dGV4dA=="),
      Gemini.Part(nil, thoughtSignature: "YWxvbmU="),
      Gemini.Part(.functionCall(Gemini.FunctionCall(name: "f")), thoughtSignature: "Zm4="))
    let decoded = try Gemini.JSON.decode(Gemini.Content.self, from: Gemini.JSON.encode(content))
    #expect(decoded == content)
    #expect(decoded.parts.compactMap(\.thoughtSignature) == ["dGV4dA==", "YWxvbmU=", "Zm4="])
  }

  // MARK: - Server direction

  @Test("function calls and responses become tool entries; ids are kept or matched by name")
  func toolEntries() throws {
    let request = try decode("""
      {"contents": [
         {"role": "user", "parts": [{"text": "Time and weather in Oslo?"}]},
         {"role": "model", "parts": [{"text": "Checking.", "thought": true},
                                     {"functionCall": {"name": "now", "args": {}}, "thoughtSignature": "c2ln"},
                                     {"functionCall": {"id": "w1", "name": "get_weather", "args": {"unit": "celsius", "city": "Oslo"}}}]},
         {"role": "user", "parts": [{"functionResponse": {"id": "w1", "name": "get_weather", "response": {"output": {"sky": "rain"}}}},
                                    {"functionResponse": {"name": "now", "response": {"result": "10:00"}}}]},
         {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]},
         {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"error": "no station"}}}]}],
       "tools": [{"functionDeclarations": [{"name": "now"},
                                           {"name": "get_weather", "parametersJsonSchema": {"type": "object",
                                              "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                                              "propertyOrdering": ["city", "unit"]}}]}],
       "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}}}
      """)
    let generation = try request.generationRequest()
    let entries = generation.transcript.entries
    #expect(entries.count == 6)
    guard case .prompt = entries[0], case .toolCalls(let first) = entries[1],
          case .toolOutput(let weather) = entries[2], case .toolOutput(let now) = entries[3],
          case .toolCalls(let second) = entries[4], case .toolOutput(let failed) = entries[5] else {
      Issue.record("unexpected entries: \(entries)")
      return
    }
    #expect(first.calls.map(\.toolName) == ["now", "get_weather"])
    #expect(first.calls[1].id == "w1")
    #expect(first.calls[1].arguments.jsonString == #"{"city":"Oslo","unit":"celsius"}"#, "ordered as propertyOrdering")
    #expect(try first.providerContent?.content.decode(as: Gemini.Content.self) == request.contents[1])
    #expect(weather.callID == "w1" && weather.toolName == "get_weather" && entries[2].text == #"{"sky":"rain"}"#)
    #expect(now.callID == first.calls[0].id && entries[3].text == "10:00" && !now.isError)
    #expect(failed.callID == second.calls[0].id && entries[5].text == "no station" && failed.isError)
    #expect(generation.options.toolChoice == .required(tools: ["get_weather"]))
    #expect(generation.tools.map(\.name) == ["now", "get_weather"])
    #expect(generation.tools[0].parameters.jsonSchema["type"] == "object")
    #expect(generation.responseFormat == nil)
  }

  @Test("functionCallingConfig modes map onto tool choices",
        arguments: [("AUTO", ToolChoice.automatic), ("VALIDATED", .automatic), ("NONE", .none),
                    ("ANY", .required(tools: nil))])
  func modes(_ mode: String, _ choice: ToolChoice) throws {
    let request = try decode(#"{"contents": [{"parts": [{"text": "x"}]}], "toolConfig": {"functionCallingConfig": {"mode": "\#(mode)"}}}"#)
    #expect(try request.transcriptAndOptions().options.toolChoice == choice)
  }

  @Test("Gemini's OpenAPI schemas (google-genai's pydantic output) convert to JSON Schema")
  func openAPISchema() throws {
    let schema = try GenerationSchema(geminiSchema: JSONValue(jsonString: """
      {"properties": {"name": {"title": "Name", "type": "STRING"}, "age": {"title": "Age", "type": "INTEGER", "format": "int32", "minimum": 0},
                      "tags": {"items": {"type": "STRING", "enum": ["a", "b"]}, "nullable": true, "title": "Tags", "type": "ARRAY", "max_items": "3"}},
       "property_ordering": ["name", "age", "tags"], "required": ["name", "age"], "title": "Person", "type": "OBJECT",
       "example": {"name": "Ada"}}
      """))
    #expect(schema.jsonSchema == (try JSONValue(jsonString: """
      {"type": "object", "title": "Person", "required": ["name", "age"], "propertyOrdering": ["name", "age", "tags"],
       "additionalProperties": false,
       "properties": {"name": {"title": "Name", "type": "string"}, "age": {"title": "Age", "type": "integer", "minimum": 0},
                      "tags": {"anyOf": [{"items": {"type": "string", "enum": ["a", "b"]}, "title": "Tags", "type": "array", "maxItems": 3},
                                         {"type": "null"}]}}}
      """)))
  }

  @Test("schemas that do not convert are typed errors naming the member",
        arguments: [
          (#"{"type": "OBJECT", "properties": {"a": {"type": "TEXT"}}}"#, "schema.properties.a.type: unknown type TEXT"),
          (##"{"type": "STRING", "$ref": "#/defs/x"}"##, "schema.$ref is not a field of the Gemini Schema"),
          (#"{"type": "ARRAY", "minItems": -1}"#, "schema.minItems must be a non-negative integer"),
          (#""STRING""#, "schema must be an object"),
        ])
  func invalidSchemas(_ text: String, _ message: String) throws {
    #expect(throws: GeminiConversionError.invalidSchema(message)) {
      try GenerationSchema(geminiSchema: JSONValue(jsonString: text))
    }
    #expect(GeminiConversionError.invalidSchema(message).unsupportedReason == .unsupportedSchema(message))
  }

  @Test("responseJsonSchema, responseSchema and JSON mode become the response format")
  func responseFormats() throws {
    let json = try decode(#"{"contents": [], "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {"type": "object", "title": "Reply", "properties": {"ok": {"type": "boolean"}}}}}"#)
    let format = try #require(try json.responseFormat())
    #expect(format.schema.jsonSchema == .object(["type": "object", "title": "Reply", "properties": .object(["ok": .object(["type": "boolean"])])]))
    #expect(format.name == "Reply")

    let openAPI = try decode(#"{"contents": [], "generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": "ARRAY", "items": {"type": "NUMBER"}}}}"#)
    #expect(try openAPI.responseFormat()?.schema.jsonSchema == .object(["type": "array", "items": .object(["type": "number"])]))

    let anyJSON = try decode(#"{"contents": [], "generationConfig": {"responseMimeType": "application/json"}}"#)
    #expect(try anyJSON.responseFormat()?.schema.jsonSchema == .object([:]))

    let plain = try decode(#"{"contents": [], "generationConfig": {"temperature": 0}}"#)
    #expect(try plain.responseFormat() == nil)

    let enumMode = try decode(#"{"contents": [], "generationConfig": {"responseMimeType": "text/x.enum", "responseSchema": {"type": "STRING", "enum": ["a"]}}}"#)
    #expect(throws: GeminiConversionError.self) { try enumMode.responseFormat() }
    let textWithSchema = try decode(#"{"contents": [], "generationConfig": {"responseMimeType": "text/plain", "responseJsonSchema": {"type": "string"}}}"#)
    #expect(throws: GeminiConversionError.self) { try textWithSchema.responseFormat() }
  }

  @Test("built-in tools and parts in the wrong turn are typed errors")
  func unsupportedTools() throws {
    let search = try decode(#"{"contents": [{"parts": [{"text": "x"}]}], "tools": [{"googleSearch": {}}]}"#)
    #expect(throws: GeminiConversionError.unsupportedInput("tool googleSearch")) { try search.generationRequest() }
    let twice = try decode(#"{"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{"name": "f"}, {"name": "f"}]}]}"#)
    #expect(throws: GeminiConversionError.self) { try twice.generationRequest() }
    let userCall = try decode(#"{"contents": [{"role": "user", "parts": [{"functionCall": {"name": "f"}}]}]}"#)
    #expect(throws: GeminiConversionError.unsupportedInput("functionCall in a user turn")) { try userCall.transcriptAndOptions() }
  }

  @Test("a transcript with tool entries survives the trip to a request and back")
  func roundTrip() throws {
    let calls = Transcript.ToolCalls(calls: [
      Transcript.ToolCall(id: "c1", toolName: "get_weather", arguments: try GeneratedContent(json: #"{"city":"Paris","unit":"celsius"}"#)),
    ])
    let transcript = Transcript(entries: [
      .prompt(Transcript.Prompt(text: "Weather?")),
      .toolCalls(calls),
      .toolOutput(Transcript.ToolOutput(callID: "c1", toolName: "get_weather", text: "Sunny")),
    ])
    let request = try GenerateContentRequest(GenerationRequest(
      transcript: transcript, options: GenerationOptions(toolChoice: .required(tools: ["get_weather"])), tools: [.weather]))
    let back = try request.generationRequest()
    #expect(back.transcript.map(\.text) == transcript.map(\.text))
    guard case .toolCalls(let backCalls) = back.transcript.entries[1], case .toolOutput(let output) = back.transcript.entries[2] else {
      Issue.record("unexpected entries: \(back.transcript.entries)")
      return
    }
    #expect(backCalls.calls == calls.calls)
    #expect(output.callID == "c1")
    #expect(back.tools == [.weather])
    #expect(back.options.toolChoice == .required(tools: ["get_weather"]))
  }
}

extension JSONValue {
  /// The elements of an array.
  var array: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}
