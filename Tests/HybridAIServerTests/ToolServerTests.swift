import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Synchronization
import Testing

/// Function calling and structured output through the Gemini-compatible server, over real HTTP on
/// loopback, with a scripted model behind it: what the model receives (tools, tool choice,
/// schemas, tool entries) and what clients get back (`functionCall` parts, unary and SSE).
@Suite("Server: tools and structured output (scripted model)")
struct ToolServerTests {
  static let weatherSchema = GenerationSchema.object(properties: [
    .init(name: "city", schema: GenerationSchema(jsonSchema: ["type": "string"])),
  ])

  /// Calls `get_weather` for Paris on the first answer; afterwards answers with text.
  static func callThenAnswer(_ request: GenerationRequest, _ index: Int) -> [GenerationEvent] {
    guard index == 0 else { return [.textDelta("It is "), .textDelta("sunny.")] }
    let arguments = (try? GeneratedContent(json: #"{"city":"Paris"}"#)) ?? GeneratedContent(JSONValue.null)
    return [.toolCalls([Transcript.ToolCall(id: "call_paris", toolName: "get_weather", arguments: arguments)])]
  }

  static var declarations: [String: Any] { ["functionDeclarations": [[
    "name": "get_weather", "description": "The weather in a city",
    "parameters": ["type": "OBJECT", "properties": ["city": ["type": "STRING"]], "required": ["city"]],
  ]]] }

  private func parts(_ json: [String: Any]) -> [[String: Any]] {
    let candidate = (json["candidates"] as? [[String: Any]])?.first
    return (candidate?["content"] as? [String: Any])?["parts"] as? [[String: Any]] ?? []
  }

  private func finishReason(_ json: [String: Any]) -> String? {
    (json["candidates"] as? [[String: Any]])?.first?["finishReason"] as? String
  }

  @Test("a GeminiModel session's tool loop through the server: calls out, outputs back in")
  func sessionToolLoop() async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served(script: Self.callThenAnswer))
    defer { Task { await server.stop() } }
    let tool = WeatherTool()
    let cloud = GeminiModel(name: ScriptedServer.modelName, apiKey: nil, baseURL: server.baseURL)
    let session = GenerativeModelSession(model: cloud, tools: [tool])
    let response = try await session.respond(to: "Weather in Paris?", options: GenerationOptions(toolChoice: .required()))
    #expect(response.content == "It is sunny.")
    #expect(tool.cities.withLock { $0 } == ["Paris"])

    // The session's transcript: the call kept the server's id.
    guard case .toolCalls(let calls) = session.transcript.entries[2] else {
      Issue.record("unexpected entries: \(session.transcript.entries)")
      return
    }
    #expect(calls.calls.map(\.id) == ["call_paris"])
    #expect(calls.modelVersion == ScriptedServer.modelName)

    // What the model behind the server received.
    let received = server.model.requests
    #expect(received.count == 2)
    #expect(received[0].tools.map(\.name) == ["get_weather"])
    #expect(received[0].tools.first?.parameters == tool.parameters)
    #expect(received[0].options.toolChoice == .required(tools: nil))
    #expect(received[1].options.toolChoice == nil, "the session relaxed the required choice after the call")
    let entries = received[1].transcript.entries
    guard case .toolCalls(let seenCalls) = entries[entries.count - 2], case .toolOutput(let output) = entries.last else {
      Issue.record("unexpected entries: \(entries)")
      return
    }
    #expect(seenCalls.calls.map(\.id) == ["call_paris"])
    #expect(seenCalls.calls.first?.arguments.jsonString == #"{"city":"Paris"}"#)
    #expect(output.callID == "call_paris" && output.toolName == "get_weather")
    #expect(received[1].transcript.entries.last?.text == "Sunny in Paris")

    // On the wire, the second request carried the function call and its response with the same id.
    let wire = try #require(server.log.requests.withLock { $0.last })
    #expect(wire.contents.count == 3)
    guard case .functionCall(let call)? = wire.contents[1].parts.first?.data,
          case .functionResponse(let answer)? = wire.contents[2].parts.first?.data else {
      Issue.record("unexpected contents: \(wire.contents)")
      return
    }
    #expect(call.id == "call_paris" && answer.id == "call_paris")
    #expect(answer.response == .object(["result": "Sunny in Paris"]))
  }

  @Test("generateContent answers a tool call with functionCall parts and STOP; the stream sends them in its last event", arguments: ServerTransport.allCases)
  func functionCallParts(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { request, _ in
      Self.callThenAnswer(request, 0)
    }, transport: transport)
    defer { Task { await server.stop() } }
    let body: [String: Any] = [
      "contents": [["role": "user", "parts": [["text": "Weather in Paris?"]]]],
      "tools": [Self.declarations],
      "toolConfig": ["functionCallingConfig": ["mode": "ANY", "allowedFunctionNames": ["get_weather"]]],
    ]
    let unary = try await TestHTTP.send(.POST, server.url("generateContent"), json: body)
    #expect(unary.status == 200)
    let json = try unary.json
    #expect(finishReason(json) == "STOP")
    let call = try #require(parts(json).first?["functionCall"] as? [String: Any])
    #expect(call["id"] as? String == "call_paris")
    #expect(call["name"] as? String == "get_weather")
    #expect(call["args"] as? [String: String] == ["city": "Paris"])

    let stream = try await TestHTTP.send(.POST, URL(string: server.url("streamGenerateContent").absoluteString + "?alt=sse")!, json: body)
    #expect(stream.status == 200)
    let events = try stream.events
    let last = try #require(events.last)
    #expect(finishReason(last) == "STOP")
    #expect((parts(last).first?["functionCall"] as? [String: Any])?["id"] as? String == "call_paris")
    #expect((last["usageMetadata"] as? [String: Any])?["candidatesTokenCount"] as? Int == 4)

    // The model got the converted declaration and tool choice.
    let request = try #require(server.model.requests.first)
    #expect(request.tools.first?.parameters.jsonSchema == [
      "type": "object", "properties": ["city": ["type": "string"]], "required": ["city"], "additionalProperties": false,
    ])
    #expect(request.options.toolChoice == .required(tools: ["get_weather"]))
  }

  @Test("a function response turn (no id) answers the call it follows", arguments: ServerTransport.allCases)
  func functionResponseWithoutID(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("Sunny.")] }, transport: transport)
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [
        ["role": "user", "parts": [["text": "Weather in Paris?"]]],
        ["role": "model", "parts": [["functionCall": ["name": "get_weather", "args": ["city": "Paris"]]]]],
        ["role": "user", "parts": [["functionResponse": ["name": "get_weather", "response": ["result": "sunny, 21 °C"]]]]],
      ],
      "tools": [Self.declarations],
    ])
    #expect(reply.status == 200)
    #expect(parts(try reply.json).first?["text"] as? String == "Sunny.")
    let entries = try #require(server.model.requests.first).transcript.entries
    #expect(entries.count == 3)
    guard case .toolCalls(let calls) = entries[1], case .toolOutput(let output) = entries[2] else {
      Issue.record("unexpected entries: \(entries)")
      return
    }
    #expect(output.callID == calls.calls[0].id)
    #expect(entries[2].text == "sunny, 21 °C")
  }

  @Test("responseJsonSchema passes through unchanged; responseSchema is converted; JSON mode is the empty schema", arguments: ServerTransport.allCases)
  func schemasPassThrough(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta(#"{"name":"Ada","age":36}"#)] }, transport: transport)
    defer { Task { await server.stop() } }
    let jsonSchema: [String: Any] = [
      "type": "object", "title": "Person",
      "properties": ["name": ["type": "string"], "age": ["type": "integer", "minimum": 0]],
      "required": ["name", "age"],
    ]
    let first = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [["parts": [["text": "A person"]]]],
      "generationConfig": ["responseMimeType": "application/json", "responseJsonSchema": jsonSchema],
    ])
    #expect(first.status == 200)
    #expect(parts(try first.json).first?["text"] as? String == #"{"name":"Ada","age":36}"#)
    let openAPI = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [["parts": [["text": "A person"]]]],
      "generationConfig": ["responseMimeType": "application/json", "responseSchema": [
        "type": "OBJECT", "properties": ["name": ["type": "STRING"], "age": ["type": "INTEGER"]],
        "required": ["name", "age"], "propertyOrdering": ["name", "age"]]],
    ])
    #expect(openAPI.status == 200)
    let jsonMode = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [["parts": [["text": "A person"]]]], "generationConfig": ["responseMimeType": "application/json"],
    ])
    #expect(jsonMode.status == 200)

    let received = server.model.requests
    #expect(received.count == 3)
    let sentSchema = try JSONValue(jsonString: String(decoding: try JSONSerialization.data(withJSONObject: jsonSchema),
                                                      as: UTF8.self))
    #expect(received[0].responseFormat?.schema.jsonSchema == sentSchema)
    #expect(received[0].responseFormat?.name == "Person")
    #expect(received[1].responseFormat?.schema.jsonSchema == [
      "type": "object", "properties": ["name": ["type": "string"], "age": ["type": "integer"]],
      "required": ["name", "age"], "propertyOrdering": ["name", "age"], "additionalProperties": false,
    ])
    #expect(received[2].responseFormat?.schema.jsonSchema == [:])
  }

  @Test("schemas and tools the model cannot take are 400 INVALID_ARGUMENT with a clear message", arguments: ServerTransport.allCases)
  func unsupported(over transport: ServerTransport) async throws {
    let model = ScriptedLanguageModel.served(support: { request in
      if case .string? = request.responseFormat?.schema.jsonSchema["properties"]?["code"]?["pattern"] {
        return .unsupported(.unsupportedSchema("pattern is not supported"))
      }
      return .supported
    }, script: { _, _ in [.textDelta("x")] })
    let server = try await ScriptedServer.start(model, transport: transport)
    defer { Task { await server.stop() } }
    func send(_ extra: [String: Any]) async throws -> TestHTTP.Reply {
      var body: [String: Any] = ["contents": [["parts": [["text": "x"]]]]]
      for (key, value) in extra { body[key] = value }
      return try await TestHTTP.send(.POST, server.url("generateContent"), json: body)
    }
    func message(_ reply: TestHTTP.Reply) -> String {
      ((try? reply.json["error"] as? [String: Any])?["message"] as? String) ?? ""
    }

    let pattern = try await send(["generationConfig": ["responseMimeType": "application/json", "responseJsonSchema": [
      "type": "object", "properties": ["code": ["type": "string", "pattern": "^[A-Z]{3}$"]]]]])
    #expect(pattern.status == 400 && pattern.errorStatus == "INVALID_ARGUMENT")
    #expect(message(pattern).contains("pattern is not supported"), "\(message(pattern))")

    let badType = try await send(["tools": [["functionDeclarations": [[
      "name": "f", "parameters": ["type": "OBJECT", "properties": ["a": ["type": "TEXT"]]]]]]]])
    #expect(badType.status == 400 && badType.errorStatus == "INVALID_ARGUMENT")
    #expect(message(badType).contains("parameters of f: schema.properties.a.type: unknown type TEXT"), "\(message(badType))")

    let search = try await send(["tools": [["googleSearch": [:]]]])
    #expect(search.status == 400 && message(search).contains("googleSearch"))

    let enumMode = try await send(["generationConfig": ["responseMimeType": "text/x.enum",
                                                        "responseSchema": ["type": "STRING", "enum": ["a"]]]])
    #expect(enumMode.status == 400 && message(enumMode).contains("text/x.enum"))

    let unknownAllowed = try await send([
      "tools": [Self.declarations],
      "toolConfig": ["functionCallingConfig": ["mode": "ANY", "allowedFunctionNames": ["launch"]]]])
    #expect(unknownAllowed.status == 400 && message(unknownAllowed).contains("launch"))
    #expect(server.model.requests.isEmpty, "nothing reached the model")
  }
}

/// Answers "Sunny in <city>" and records the cities it was asked about.
final class WeatherTool: Tool {
  struct Arguments: ConvertibleFromGeneratedContent {
    var city: String
    init(_ content: GeneratedContent) throws { city = try content.value(forProperty: "city") }
  }

  let name = "get_weather"
  let description = "The current weather in a city"
  let parameters = GenerationSchema.object(properties: [
    .init(name: "city", description: "The city's name", schema: GenerationSchema(jsonSchema: ["type": "string"])),
  ])
  let cities = Mutex<[String]>([])

  func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    cities.withLock { $0.append(arguments.city) }
    return ToolOutput("Sunny in \(arguments.city)")
  }
}
