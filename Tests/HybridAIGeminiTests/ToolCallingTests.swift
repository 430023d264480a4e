import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Function calls in Gemini's answers become tool calls (checked against the tools offered), the
/// session's tool loop sends the turn back with its thought signatures and the outputs, and
/// structured answers are checked against their schema. Every answer comes over a real loopback
/// socket, recorded fixtures included.
@Suite("Tool calls and structured answers")
struct ToolCallingTests {
  static let signatureFixtures = [
    "streaming-success-thinking-function-call-thought-summary-signature.txt",
    "unary-success-thinking-function-call-thought-summary-signature.json",
  ]

  /// A fixture as the stream GeminiModel reads: streaming files as they are, a unary body as the
  /// one event of a stream.
  static func streamReply(_ file: String) throws -> TestHTTPServer.Reply {
    let body = try GeminiFixtures.data(file)
    if file.hasPrefix("streaming-") { return .rawSSE(body, chunkSize: 113) }
    let event = String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline)
      .map { "data: \($0)\n" }.joined() + "\n"
    return .rawSSE(Data(event.utf8), chunkSize: 97)
  }

  static let finalAnswer = TestHTTPServer.Reply.sse([
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "156 days "}]}}], "modelVersion": "gemini-2.5-flash"}"#,
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "to go."}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 5, "totalTokenCount": 65}, "modelVersion": "gemini-2.5-flash"}"#,
  ])

  static func sse(_ parts: [String], finish: Bool = true) -> String {
    let reason = finish ? #", "finishReason": "STOP""# : ""
    return #"{"candidates": [{"content": {"role": "model", "parts": [\#(parts.joined(separator: ", "))]}\#(reason)}], "modelVersion": "gemini-test"}"#
  }

  // MARK: - The recorded function call and its thought signature

  @Test("a session's tool loop sends the recorded function call back with its exact thought signature",
        arguments: signatureFixtures)
  func thoughtSignatureRoundTrip(_ file: String) async throws {
    let facts = try GeminiFixtureFacts(try GeminiFixtures.data(file), streaming: file.hasPrefix("streaming-"))
    let signature = try #require(facts.signatures.last)
    let first = try Self.streamReply(file)
    let server = try await TestHTTPServer.start { _, index in index == 0 ? first : Self.finalAnswer }
    defer { Task { await server.stop() } }
    let now = RecordingTool(name: "now", description: "The current date and time") { _ in "2025-07-28T10:00:00Z" }
    let session = GenerativeModelSession(model: testModel(server), tools: [now])

    let response = try await session.respond(to: "How many days until New Year's Eve?")
    #expect(response.content == "156 days to go.")
    #expect(now.calls.map(\.jsonString) == ["{}"])
    #expect(server.requests.count == 2)

    // The first request declared the tool.
    let firstBody = try jsonBody(server.requests[0])
    #expect(firstBody["tools"]?.firstArrayElement?["functionDeclarations"]?.firstArrayElement?["name"] == "now")

    // The transcript: the tools, the prompt, the model's calls (Gemini's content kept), the output, the answer.
    let entries = session.transcript.entries
    #expect(entries.count == 5)
    guard case .instructions(let instructions) = entries[0], case .toolCalls(let calls) = entries[2],
          case .toolOutput(let output) = entries[3] else {
      Issue.record("unexpected entries: \(entries)")
      return
    }
    #expect(instructions.toolDefinitions.map(\.name) == ["now"])
    #expect(calls.calls.map(\.toolName) == ["now"])
    #expect(calls.calls[0].id.hasPrefix("call_"), "Gemini sent no id: one is made up")
    #expect(calls.modelVersion == facts.modelVersion)
    #expect(calls.providerContent?.provider == "gemini")
    #expect(output.callID == calls.calls[0].id)

    // The next request carries the model turn as it came: thoughts, then the call with its signature.
    let body = try jsonBody(server.requests[1])
    guard case .array(let contents)? = body["contents"] else { Issue.record("no contents"); return }
    #expect(contents.count == 3)
    #expect(contents[1] == calls.providerContent?.content)
    guard case .array(let parts)? = contents[1]["parts"] else { Issue.record("no parts"); return }
    #expect(contents[1]["role"] == "model")
    #expect(parts.first?["thought"] == .bool(true))
    let callPart = try #require(parts.first { $0["functionCall"] != nil })
    #expect(callPart["thoughtSignature"] == .string(signature))
    #expect(callPart["functionCall"] == .object(["name": "now", "args": .object([:])]))
    // …and the tool's output, for the same call: Gemini sent no id, so none is sent back.
    #expect(contents[2] == .object(["role": "user", "parts": .array([.object(["functionResponse": .object([
      "name": "now", "response": .object(["result": "2025-07-28T10:00:00Z"]),
    ])])])]))
  }

  @Test("the recorded function call is a toolCalls event before completed, with the whole turn as provider content",
        arguments: signatureFixtures)
  func toolCallsEvent(_ file: String) async throws {
    let server = try await TestHTTPServer.start(replying: try Self.streamReply(file))
    defer { Task { await server.stop() } }
    let facts = try GeminiFixtureFacts(try GeminiFixtures.data(file), streaming: file.hasPrefix("streaming-"))
    var events: [String] = []
    var raw: RawResponse?
    var calls: [Transcript.ToolCall] = []
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: "Days?"))]),
                                    options: GenerationOptions(), tools: [.now])
    for try await event in testModel(server).generate(request) {
      switch event {
      case .textDelta: events.append("text")
      case .artifact: events.append("artifact")
      case .toolCalls(let made): events.append("toolCalls"); calls = made
      case .completed(let completion): events.append("completed"); raw = completion
      case .routed: events.append("routed")
      case .logProbabilities: events.append("logProbabilities")
      }
    }
    #expect(events == ["toolCalls", "completed"], "thought summaries are not text")
    #expect(calls.map(\.toolName) == ["now"])
    #expect(calls.first?.arguments == (try GeneratedContent(json: "{}")))
    let content = try #require(try raw?.providerContent?.content.decode(as: Gemini.Content.self))
    #expect(content.parts.compactMap(\.thoughtSignature) == facts.signatures)
    #expect(content.thoughtText == facts.thoughtText)
    #expect(raw?.finishReason == .stop)
  }

  // MARK: - Function calls with ids, across chunks

  @Test("calls arriving in different chunks, with ids: arguments in schema order, outputs answer the same ids")
  func callsWithIDs() async throws {
    let answer = TestHTTPServer.Reply.sse([
      Self.sse([#"{"text": "Let me check."}"#], finish: false),
      Self.sse([#"{"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"unit": "celsius", "city": "Paris"}}, "thoughtSignature": "c2lnLTE="}"#], finish: false),
      Self.sse([#"{"functionCall": {"id": "fc-2", "name": "get_weather", "args": {"city": "Rome"}}}"#]),
    ])
    let server = try await TestHTTPServer.start { _, index in index == 0 ? answer : Self.finalAnswer }
    defer { Task { await server.stop() } }
    let weather = RecordingTool(name: "get_weather", parameters: .weather) { arguments in
      ToolOutput("Sunny in \((try? arguments.value(String.self, forProperty: "city")) ?? "?")")
    }
    let session = GenerativeModelSession(model: testModel(server), tools: [weather])
    _ = try await session.respond(to: "Weather in Paris and Rome?")

    // The two calls run concurrently: compare what they got, not the order they started in.
    #expect(weather.calls.map(\.jsonString).sorted() == [#"{"city":"Paris","unit":"celsius"}"#, #"{"city":"Rome"}"#])
    guard case .toolCalls(let calls)? = session.transcript.entries.first(where: { if case .toolCalls = $0 { true } else { false } })
    else { Issue.record("no tool calls"); return }
    #expect(calls.calls.map(\.id) == ["fc-1", "fc-2"])

    let body = try jsonBody(server.requests[1])
    guard case .array(let contents)? = body["contents"] else { Issue.record("no contents"); return }
    #expect(contents.count == 3)
    guard case .array(let modelParts)? = contents[1]["parts"] else { Issue.record("no parts"); return }
    #expect(modelParts.count == 3)
    #expect(modelParts[0] == .object(["text": "Let me check."]))
    #expect(modelParts[1]["thoughtSignature"] == "c2lnLTE=")
    #expect(modelParts[1]["functionCall"]?["id"] == "fc-1")
    #expect(modelParts[2]["functionCall"]?["id"] == "fc-2")
    #expect(contents[2] == .object(["role": "user", "parts": .array([
      .object(["functionResponse": .object(["id": "fc-1", "name": "get_weather", "response": .object(["result": "Sunny in Paris"])])]),
      .object(["functionResponse": .object(["id": "fc-2", "name": "get_weather", "response": .object(["result": "Sunny in Rome"])])]),
    ])]))
  }

  @Test("a unary-style answer (one chunk) with a call and its finish reason works the same")
  func callInTheFinalChunk() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      Self.sse([#"{"functionCall": {"name": "get_weather", "args": {"city": "Lima"}}}"#]),
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), GenerationRequest(
      transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: "Lima?"))]), options: GenerationOptions(),
      tools: [.weather]))
    #expect(outcome.error == nil)
    #expect(outcome.toolCalls.map(\.toolName) == ["get_weather"])
    #expect(outcome.toolCalls.first?.arguments.jsonString == #"{"city":"Lima"}"#)
    #expect(outcome.raw?.modelVersion == "gemini-test")
  }

  // MARK: - Typed errors

  private func outcome(answering parts: [String], tools: [ToolDefinition] = [.weather],
                       format: ResponseFormat? = nil) async throws -> Outcome {
    let server = try await TestHTTPServer.start(replying: .sse([Self.sse(parts)]))
    defer { Task { await server.stop() } }
    return await run(testModel(server), GenerationRequest(
      transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: "Go"))]), options: GenerationOptions(),
      tools: tools, responseFormat: format))
  }

  @Test("a call of a function that was not offered is GenerationError.unknownTool")
  func unknownTool() async throws {
    let result = try await outcome(answering: [#"{"functionCall": {"name": "launch_rocket", "args": {"when": "now"}}}"#])
    #expect(result.error as? GenerationError == .unknownTool(name: "launch_rocket", arguments: #"{"when":"now"}"#))
    #expect(result.raw == nil)
    #expect(result.toolCalls.isEmpty)
  }

  @Test("arguments that do not follow the tool's schema are GenerationError.invalidToolArguments with the raw arguments",
        arguments: [
          (#"{"town": "Paris"}"#, #"{"town":"Paris"}"#, "the required property 'city' is missing"),
          (#"{"city": 42}"#, #"{"city":42}"#, "#/city: 42 is not of type string"),
          (#"{"city": "Paris", "unit": "kelvin"}"#, #"{"city":"Paris","unit":"kelvin"}"#, "allowed values"),
        ])
  func invalidArguments(_ args: String, _ raw: String, _ reasonMentions: String) async throws {
    let result = try await outcome(answering: [#"{"functionCall": {"name": "get_weather", "args": \#(args)}}"#])
    guard case GenerationError.invalidToolArguments(let tool, let arguments, let reason)? = result.error else {
      Issue.record("expected invalidToolArguments, got \(String(describing: result.error))")
      return
    }
    #expect(tool == "get_weather")
    #expect(arguments == raw)
    #expect(reason.contains(reasonMentions), "\(reason)")
  }

  @Test("a structured answer that is not JSON, or not of the schema, is GenerationError.invalidStructuredOutput",
        arguments: [
          ("Sure! Here it is.", "invalid JSON"),
          (#"{\"city\": 3}"#, "is not of type string"),
          (#"{\"city\": \"Paris\", \"wind\": 3}"#, "the property 'wind' is not allowed"),
        ])
  func invalidStructuredOutput(_ text: String, _ reasonMentions: String) async throws {
    let result = try await outcome(answering: [#"{"text": "\#(text)"}"#], tools: [],
                                   format: ResponseFormat(schema: .weather))
    guard case GenerationError.invalidStructuredOutput(let raw, let reason)? = result.error else {
      Issue.record("expected invalidStructuredOutput, got \(String(describing: result.error))")
      return
    }
    #expect(raw == result.text)
    #expect(reason.contains(reasonMentions), "\(reason)")
  }

  @Test("a structured answer of the schema decodes through the session")
  func structuredAnswer() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      Self.sse([#"{"text": "{\"city\": \"Par"}"#], finish: false),
      Self.sse([#"{"text": "is\", \"unit\": \"celsius\"}"}"#]),
    ]))
    defer { Task { await server.stop() } }
    let session = GenerativeModelSession(model: testModel(server))
    let response = try await session.respond(to: "Weather?", schema: .weather)
    #expect(response.content.jsonString == #"{"city":"Paris","unit":"celsius"}"#)
    let body = try jsonBody(try #require(server.requests.first))
    #expect(body["generationConfig"]?["responseMimeType"] == "application/json")
    #expect(body["generationConfig"]?["responseJsonSchema"] == GenerationSchema.weather.jsonSchema)
  }
}

extension JSONValue {
  /// The first element of an array.
  var firstArrayElement: JSONValue? {
    if case .array(let items) = self { return items.first }
    return nil
  }
}
