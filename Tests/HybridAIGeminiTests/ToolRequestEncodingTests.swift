import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// What GeminiModel sends for tools, tool choice, structured output, and the tool entries of a
/// transcript: the request bodies as a loopback server received them.
@Suite("Requests with tools and structured output")
struct ToolRequestEncodingTests {
  private static let okStream = TestHTTPServer.Reply.sse([
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]}, "finishReason": "STOP"}]}"#,
  ])

  /// The body GeminiModel sends for `request`.
  private func sentBody(_ request: GenerationRequest) async throws -> JSONValue {
    let server = try await TestHTTPServer.start(replying: Self.okStream)
    defer { Task { await server.stop() } }
    _ = await run(testModel(server), request)
    return try jsonBody(try #require(server.requests.first))
  }

  private func request(tools: [ToolDefinition] = [], options: GenerationOptions = GenerationOptions(),
                       format: ResponseFormat? = nil, transcript: Transcript? = nil) -> GenerationRequest {
    GenerationRequest(transcript: transcript ?? Transcript(entries: [.prompt(Transcript.Prompt(text: "Hi"))]),
                      options: options, tools: tools, responseFormat: format)
  }

  @Test("tools become functionDeclarations with parametersJsonSchema; no toolConfig by default")
  func functionDeclarations() async throws {
    let body = try await sentBody(request(tools: [.weather, .now]))
    #expect(body["tools"] == .array([.object(["functionDeclarations": .array([
      .object(["name": "get_weather", "description": "The weather in a city",
               "parametersJsonSchema": GenerationSchema.weather.jsonSchema]),
      .object(["name": "now", "description": "The current date and time",
               "parametersJsonSchema": GenerationSchema.emptyObject.jsonSchema]),
    ])])]))
    #expect(body["toolConfig"] == nil)
    #expect(body["generationConfig"] == nil)
  }

  @Test("the same request is the same bytes every time: a tool's schema and a call's arguments in one key order")
  func sameBytesEveryTime() async throws {
    // Each request made anew: its schemas and arguments are new dictionaries, whose order in Swift
    // differs from one instance to the next (unsorted, all 8 bodies differed).
    func conversation() -> GenerationRequest {
      let arguments = GeneratedContent(JSONValue.object(["city": "Paris", "unit": "celsius", "days": 3, "detail": true]))
      return request(tools: [.weather, .now], transcript: Transcript(entries: [
        .prompt(Transcript.Prompt(id: "p1", text: "Weather?")),
        .toolCalls(Transcript.ToolCalls(id: "t1", calls: [Transcript.ToolCall(id: "c1", toolName: "get_weather", arguments: arguments)])),
        .toolOutput(Transcript.ToolOutput(id: "o1", callID: "c1", toolName: "get_weather", text: "Sunny")),
      ]))
    }
    let server = try await TestHTTPServer.start(replying: Self.okStream)
    defer { Task { await server.stop() } }
    for _ in 0..<8 { _ = await run(testModel(server), conversation()) }
    let bodies = server.requests.map(\.body)
    #expect(bodies.count == 8)
    #expect(Set(bodies).count == 1, "\(Set(bodies).count) different bodies for one request")
  }

  @Test("tool choice becomes functionCallingConfig",
        arguments: [
          (ToolChoice.required(tools: ["get_weather"]),
           JSONValue.object(["functionCallingConfig": .object(["mode": "ANY", "allowedFunctionNames": .array(["get_weather"])])])),
          (ToolChoice.required(), JSONValue.object(["functionCallingConfig": .object(["mode": "ANY"])])),
          (ToolChoice.none, JSONValue.object(["functionCallingConfig": .object(["mode": "NONE"])])),
        ])
  func toolChoice(_ choice: ToolChoice, _ expected: JSONValue) async throws {
    let body = try await sentBody(request(tools: [.weather], options: GenerationOptions(toolChoice: choice)))
    #expect(body["toolConfig"] == expected)
  }

  @Test("automatic tool choice, or no tools at all, sends no toolConfig")
  func noToolConfig() async throws {
    let automatic = try await sentBody(request(tools: [.weather], options: GenerationOptions(toolChoice: .automatic)))
    #expect(automatic["toolConfig"] == nil)
    let withoutTools = try await sentBody(request(options: GenerationOptions(toolChoice: .required())))
    #expect(withoutTools["tools"] == nil)
    #expect(withoutTools["toolConfig"] == nil)
  }

  @Test(".gemini(toolConfig:) is sent as it is, instead of the tool choice")
  func explicitToolConfig() async throws {
    var options = GenerationOptions.gemini(toolConfig: Gemini.ToolConfig(
      functionCallingConfig: .init(mode: .validated, allowedFunctionNames: ["now"])))
    options.toolChoice = ToolChoice.none
    let body = try await sentBody(request(tools: [.weather, .now], options: options))
    #expect(body["toolConfig"] == .object(["functionCallingConfig": .object([
      "mode": "VALIDATED", "allowedFunctionNames": .array(["now"]),
    ])]))
    #expect(body["generationConfig"] == nil)
    let hybrid = GenerationOptions.hybrid(gemini: GenerationConfig(temperature: 0.2),
                                          toolConfig: Gemini.ToolConfig(functionCallingConfig: .init(mode: .any)),
                                          onDevice: GenerationOptions(toolChoice: ToolChoice.none))
    let hybridBody = try await sentBody(request(tools: [.now], options: hybrid))
    #expect(hybridBody["toolConfig"] == .object(["functionCallingConfig": .object(["mode": "ANY"])]))
  }

  @Test("the tool choice of hybrid options reaches the cloud too")
  func hybridToolChoice() async throws {
    let options = GenerationOptions.hybrid(gemini: GenerationConfig(temperature: 0.2),
                                           onDevice: GenerationOptions(toolChoice: .required(tools: ["now"])))
    let body = try await sentBody(request(tools: [.now], options: options))
    #expect(body["toolConfig"] == .object(["functionCallingConfig": .object([
      "mode": "ANY", "allowedFunctionNames": .array(["now"]),
    ])]))
  }

  @Test("a response format becomes responseMimeType and responseJsonSchema, beside the other options")
  func responseFormat() async throws {
    let format = ResponseFormat(name: "Weather", schema: .weather)
    let body = try await sentBody(request(options: GenerationOptions(maximumResponseTokens: 50), format: format))
    #expect(body["generationConfig"] == .object([
      "maxOutputTokens": .number(50), "responseMimeType": "application/json",
      "responseJsonSchema": GenerationSchema.weather.jsonSchema,
    ]))
  }

  @Test("a response schema in the attached GenerationConfig wins over the response format")
  func configuredSchemaWins() async throws {
    let own = JSONValue.object(["type": "STRING", "enum": .array(["a", "b"])])
    let options = GenerationOptions.gemini(GenerationConfig(responseMimeType: "text/x.enum", responseSchema: own))
    let body = try await sentBody(request(options: options, format: ResponseFormat(schema: .weather)))
    #expect(body["generationConfig"] == .object(["responseMimeType": "text/x.enum", "responseSchema": own]))
  }

  @Test("calls of another model become functionCall parts with ids, the first with the dummy signature; outputs share one user content")
  func foreignToolCalls() async throws {
    let transcript = Transcript(entries: [
      .prompt(Transcript.Prompt(text: "Weather in Paris and Rome?")),
      .toolCalls(Transcript.ToolCalls(calls: [
        Transcript.ToolCall(id: "call_1", toolName: "get_weather", arguments: try GeneratedContent(json: #"{"city":"Paris"}"#)),
        Transcript.ToolCall(id: "call_2", toolName: "get_weather", arguments: try GeneratedContent(json: #"{"city":"Rome"}"#)),
      ], modelVersion: "SmolLM2")),
      .toolOutput(Transcript.ToolOutput(callID: "call_1", toolName: "get_weather", text: "Sunny")),
      .toolOutput(Transcript.ToolOutput(callID: "call_2", toolName: "get_weather", text: "no data", isError: true)),
    ])
    let body = try await sentBody(request(tools: [.weather], transcript: transcript))
    #expect(body["contents"] == .array([
      .object(["role": "user", "parts": .array([.object(["text": "Weather in Paris and Rome?"])])]),
      .object(["role": "model", "parts": .array([
        .object(["functionCall": .object(["id": "call_1", "name": "get_weather", "args": .object(["city": "Paris"])]),
                 "thoughtSignature": "skip_thought_signature_validator"]),
        .object(["functionCall": .object(["id": "call_2", "name": "get_weather", "args": .object(["city": "Rome"])])]),
      ])]),
      .object(["role": "user", "parts": .array([
        .object(["functionResponse": .object(["id": "call_1", "name": "get_weather", "response": .object(["result": "Sunny"])])]),
        .object(["functionResponse": .object(["id": "call_2", "name": "get_weather", "response": .object(["error": "no data"])])]),
      ])]),
    ]))
    #expect(Gemini.dummyThoughtSignature == "skip_thought_signature_validator")
  }

  @Test("Gemini's own function-call turn goes back verbatim; a call Gemini sent without id is answered without id")
  func geminiToolCallsVerbatim() async throws {
    let content = Gemini.Content.model(
      Gemini.Part(.text("thinking…"), thought: true),
      Gemini.Part(.functionCall(Gemini.FunctionCall(name: "now", args: .object([:]))), thoughtSignature: "c2lnbmF0dXJl"),
      Gemini.Part(.functionCall(Gemini.FunctionCall(id: "fc-2", name: "get_weather", args: .object(["city": "Oslo"])))))
    let provided = ProviderContent(provider: "gemini", content: try JSONValue(encoding: content))
    let transcript = Transcript(entries: [
      .prompt(Transcript.Prompt(text: "Time and weather?")),
      .toolCalls(Transcript.ToolCalls(calls: [
        Transcript.ToolCall(id: "call_local", toolName: "now", arguments: try GeneratedContent(json: "{}")),
        Transcript.ToolCall(id: "fc-2", toolName: "get_weather", arguments: try GeneratedContent(json: #"{"city":"Oslo"}"#)),
      ], providerContent: provided)),
      .toolOutput(Transcript.ToolOutput(callID: "call_local", toolName: "now", text: "2025-07-28T10:00")),
      .toolOutput(Transcript.ToolOutput(callID: "fc-2", toolName: "get_weather", text: "Rain")),
      .prompt(Transcript.Prompt(text: "And tomorrow?")),
    ])
    let body = try await sentBody(request(tools: [.now, .weather], transcript: transcript))
    guard case .array(let contents)? = body["contents"] else { Issue.record("no contents"); return }
    #expect(contents.count == 4)
    #expect(contents[1] == provided.content)
    #expect(contents[2] == .object(["role": "user", "parts": .array([
      .object(["functionResponse": .object(["name": "now", "response": .object(["result": "2025-07-28T10:00"])])]),
      .object(["functionResponse": .object(["id": "fc-2", "name": "get_weather", "response": .object(["result": "Rain"])])]),
    ])]))
    #expect(contents[3] == .object(["role": "user", "parts": .array([.object(["text": "And tomorrow?"])])]))
  }
}
