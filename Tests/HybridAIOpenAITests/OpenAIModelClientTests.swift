import Foundation
import HybridAI
import HybridAIHTTP
import HybridAIOpenAI
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// `OpenAIModel` against a real HTTP server on 127.0.0.1 that answers as a compatible server
/// would — or would not: streams, tool calls, usage, every HTTP error, broken streams, invalid JSON.
@Suite("OpenAIModel client")
struct OpenAIModelClientTests {
  static let helloStream = TestHTTPServer.Reply.sse([
    chunk(role: "assistant"), chunk(content: "Hello"), chunk(content: " there"), chunk(finish: "stop"),
    usageChunk(prompt: 11, completion: 2, cached: 4), "[DONE]",
  ])

  @Test("a streamed answer: deltas, the server's model name, usage with cached tokens; the request carries the key, stream and include_usage")
  func streamedAnswer() async throws {
    let server = try await TestHTTPServer.start(replying: Self.helloStream)
    defer { Task { await server.stop() } }
    var options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 5)
    options.stopSequences = ["END"]
    let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request(options: options)))
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    #expect(outcome.deltas == ["Hello", " there"])
    let raw = try #require(outcome.raw)
    #expect(raw.modelVersion == "served-model" && raw.source == .cloud && raw.finishReason == .stop)
    #expect(raw.usage == Usage(promptTokens: 11, cachedPromptTokens: 4, outputTokens: 2))
    #expect(raw.providerContent?.provider == "openai")
    #expect(raw.providerContent?.content["content"] == "Hello there")

    let sent = try #require(server.requests.first)
    #expect(sent.method == "POST" && sent.path == "/v1/chat/completions")
    #expect(sent.header("authorization") == "Bearer test-key")
    let body = try jsonBody(sent)
    #expect(body["model"] == "test-model" && body["stream"] == true && body["stream_options"]?["include_usage"] == true)
    #expect(body["temperature"] == 0 && body["max_completion_tokens"] == 5 && body["stop"] == ["END"])
    #expect(body["messages"] == [["role": "user", "content": "Hello"]])
  }

  @Test("no key: no authorization header; a server without usage or [DONE] but with a finish reason still answers")
  func minimalServer() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"choices": [{"delta": {"content": "ok"}}]}"#, #"{"choices": [{"delta": {}, "finish_reason": "length"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server, apiKey: nil).generate(request()))
    #expect(outcome.text == "ok" && outcome.error == nil)
    #expect(outcome.raw?.finishReason == .maxTokens && outcome.raw?.modelVersion == "test-model")
    #expect(outcome.raw?.usage == Usage(promptTokens: 0, outputTokens: 0))
    #expect(server.requests.first?.header("authorization") == nil)
  }

  @Test("tool calls streamed in pieces become one toolCalls event, checked against the offered tool")
  func toolCalls() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      chunk(toolCalls: #"[{"index": 0, "id": "call_9", "type": "function", "function": {"name": "get_weather", "arguments": "{\"ci"}}]"#),
      chunk(toolCalls: #"[{"index": 0, "function": {"arguments": "ty\": \"Oslo\"}"}}]"#),
      chunk(finish: "tool_calls"), usageChunk(prompt: 40, completion: 12), "[DONE]",
    ]))
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request(tools: [weatherTool])))
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    #expect(outcome.text.isEmpty)
    let call = try #require(outcome.toolCalls.first)
    #expect(outcome.toolCalls.count == 1 && call.id == "call_9" && call.toolName == "get_weather")
    #expect(call.arguments.jsonValue == ["city": "Oslo"])
    #expect(outcome.raw?.finishReason == .stop)
    let body = try jsonBody(try #require(server.requests.first))
    #expect(body.value(atReference: "#/tools/0/function/name") == "get_weather")
  }

  @Test("a tool the request did not offer, arguments against the schema, arguments cut off: typed errors",
        arguments: [
          (#"{"index": 0, "id": "c", "function": {"name": "launch_rocket", "arguments": "{}"}}"#, "stop", "unknownTool"),
          (#"{"index": 0, "id": "c", "function": {"name": "get_weather", "arguments": "{\"town\": \"Oslo\"}"}}"#, "stop", "invalidToolArguments"),
          (#"{"index": 0, "id": "c", "function": {"name": "get_weather", "arguments": "{\"city\": \"Os"}}"#, "length", "token limit"),
        ])
  func invalidToolCalls(call: String, finish: String, expected: String) async throws {
    let server = try await TestHTTPServer.start(replying: .sse([chunk(toolCalls: "[\(call)]"), chunk(finish: finish), "[DONE]"]))
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request(tools: [weatherTool])))
    let error = try #require(outcome.error as? GenerationError, "\(String(describing: outcome.error))")
    switch (expected, error) {
    case ("unknownTool", .unknownTool(let name, _)): #expect(name == "launch_rocket")
    case ("invalidToolArguments", .invalidToolArguments(let name, _, let reason)):
      #expect(name == "get_weather" && reason.contains("city"), "\(reason)")
    case ("token limit", .invalidToolArguments(_, let arguments, let reason)):
      #expect(arguments == #"{"city": "Os"# && reason.contains("token limit"), "\(reason)")
    default: Issue.record("expected \(expected), got \(error)")
    }
    #expect(outcome.toolCalls.isEmpty, "no call reaches the session")
  }

  @Test("structured output: JSON following the schema passes; anything else is invalidStructuredOutput")
  func structuredOutput() async throws {
    let format = ResponseFormat(name: "count", schema: GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"]]))
    for (answer, valid) in [(#"{"n": 3}"#, true), (#"{"n": "three"}"#, false), ("three", false)] {
      let server = try await TestHTTPServer.start(replying: .sse([chunk(content: answer), chunk(finish: "stop"), "[DONE]"]))
      let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request(responseFormat: format)))
      await server.stop()
      if valid {
        #expect(outcome.error == nil && outcome.text == answer)
      } else {
        guard case .invalidStructuredOutput(let raw, _)? = outcome.error as? GenerationError else {
          Issue.record("\(answer): expected invalidStructuredOutput, got \(String(describing: outcome.error))")
          continue
        }
        #expect(raw == answer)
      }
      let body = try jsonBody(try #require(server.requests.first))
      #expect(body["response_format"]?["type"] == "json_schema" && body["response_format"]?["json_schema"]?["name"] == "count")
    }
  }

  @Test("a structured answer cut at the token limit (finish_reason length) is exceededTokenLimit with the limit")
  func structuredOutputAtLimit() async throws {
    let format = ResponseFormat(name: "count", schema: GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"]]))
    let server = try await TestHTTPServer.start(replying: .sse([chunk(content: #"{"n": 12"#), chunk(finish: "length"), "[DONE]"]))
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server).generate(
      request(options: GenerationOptions(maximumResponseTokens: 4), responseFormat: format)))
    guard case .exceededTokenLimit(let limit, let raw)? = outcome.error as? GenerationError else {
      Issue.record("expected exceededTokenLimit, got \(String(describing: outcome.error))")
      return
    }
    #expect(limit == 4 && raw == #"{"n": 12"#)
  }

  @Test("HTTP errors in OpenAI's envelope (and others) become typed errors, none of them offline",
        arguments: [
          (401, #"{"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}}"#, "invalidAPIKey"),
          (403, #"{"error": {"message": "no", "type": "permission_error"}}"#, "permissionDenied"),
          (404, #"{"error": {"message": "The model `x` does not exist", "type": "invalid_request_error", "code": "model_not_found"}}"#, "unknownModel"),
          (400, #"{"error": {"message": "bad n", "type": "invalid_request_error", "param": "n", "code": null}}"#, "invalidRequest"),
          (500, "<html>oops</html>", "serverError"),
          (418, #"{"error": "I am a teapot"}"#, "httpError"),
        ])
  func httpErrors(status: Int, body: String, expected: String) async throws {
    let server = try await TestHTTPServer.start(replying: .json(body, status: status))
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server, retryPolicy: .none).generate(request()))
    let error = try #require(outcome.openAIError, "\(String(describing: outcome.error))")
    #expect(error.offlineReason == nil)
    #expect(String(describing: error).contains("HTTP \(status)"), "\(error)")
    switch (expected, error) {
    case ("invalidAPIKey", .invalidAPIKey(let api)): #expect(api.error?.code == "invalid_api_key")
    case ("permissionDenied", .permissionDenied): break
    case ("unknownModel", .unknownModel(let api)): #expect(api.message.contains("does not exist"))
    case ("invalidRequest", .invalidRequest(let api)): #expect(api.error?.param == "n")
    case ("serverError", .serverError(let api)): #expect(api.rawBody == "<html>oops</html>")
    case ("httpError", .httpError(let api)): #expect(api.message == "I am a teapot")
    default: Issue.record("expected \(expected), got \(error)")
    }
  }

  @Test("429 with Retry-After is retried, then answered; a 429 that persists is rateLimited with the delay")
  func rateLimits() async throws {
    let limited = TestHTTPServer.Reply.json(#"{"error": {"message": "slow down", "type": "rate_limit_error"}}"#, status: 429,
                                            headers: [("retry-after", "0.01")])
    let server = try await TestHTTPServer.start { _, index in index == 0 ? limited : Self.helloStream }
    defer { Task { await server.stop() } }
    let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request()))
    #expect(outcome.text == "Hello there" && server.requests.count == 2)

    let always = try await TestHTTPServer.start(replying: limited)
    defer { Task { await always.stop() } }
    let failed = await GenerationOutcome.collect(openAIModel(always).generate(request()))
    guard case .rateLimited(_, let retryAfter)? = failed.openAIError else {
      Issue.record("expected rateLimited, got \(String(describing: failed.error))")
      return
    }
    #expect(retryAfter == .milliseconds(10) && always.requests.count == 3)
  }

  @Test("broken streams: cut mid-answer, ended without a finish, invalid JSON, an error event, content filter, one JSON body, text that is not an event")
  func brokenStreams() async throws {
    let cases: [(TestHTTPServer.Reply, (OpenAIError) -> Bool, String)] = [
      (.sse([chunk(content: "Hel")], end: .cut), { if case .connectionLost = $0 { true } else { false } }, "cut"),
      (.sse([chunk(content: "Hel")]), { if case .connectionLost = $0 { true } else { false } }, "no finish"),
      (.sse(["{not json"]), { if case .invalidResponse = $0 { true } else { false } }, "invalid JSON"),
      (.sse([]), { if case .invalidResponse = $0 { true } else { false } }, "empty stream"),
      (.sse([chunk(content: "Hel"), #"{"error": {"code": 500, "message": "KV cache full", "type": "server_error"}}"#]),
       { if case .serverError(let api) = $0 { api.message == "KV cache full" } else { false } }, "error event"),
      (.sse([chunk(content: "Hel"), chunk(finish: "content_filter"), "[DONE]"]),
       { if case .contentFiltered(let text) = $0 { text == "Hel" } else { false } }, "content filter"),
      (.sse([chunk(role: "assistant"), chunk(refusal: "I can't "), chunk(refusal: "help with that."), chunk(finish: "stop"), "[DONE]"]),
       { if case .refused(let explanation) = $0 { explanation == "I can't help with that." } else { false } }, "refusal"),
      (.json(#"{"choices": []}"#), { if case .invalidResponse = $0 { true } else { false } }, "JSON instead of a stream"),
      (.rawSSE(Data(("data: \(chunk(content: "Hel"))\n\n" + #"error: {"code": 500, "message": "KV cache full", "type": "server_error"}"#
                     + "\n\n").utf8), chunkSize: 13),
       { if case .serverError(let api) = $0 { api.message == "KV cache full" } else { false } }, "an error line"),
      (.rawSSE(Data(("data: \(chunk(content: "Hel"))\n\n" + #"{"error": {"message": "gone", "type": "server_error", "code": "503"}}"#
                     + "\ndata: \(chunk(finish: "stop"))\n\ndata: [DONE]\n\n").utf8), chunkSize: 29),
       { if case .serverError(let api) = $0 { api.message == "gone" } else { false } }, "an error body between events"),
      (.rawSSE(Data("data: \(chunk(content: "Hel"))\n\n<html>Bad gateway</html>\n".utf8), chunkSize: 40),
       { if case .invalidResponse(let detail) = $0 { detail.contains("Bad gateway") } else { false } }, "a page after events"),
    ]
    for (reply, matches, name) in cases {
      let server = try await TestHTTPServer.start(replying: reply)
      let outcome = await GenerationOutcome.collect(openAIModel(server).generate(request()))
      await server.stop()
      let error = outcome.openAIError
      #expect(error.map(matches) == true, "\(name): \(String(describing: outcome.error))")
      #expect(error?.offlineReason == nil, "\(name) is not offline")
      #expect(outcome.raw == nil, "\(name): no completion")
    }
  }

  @Test("unreachable: refused and reset connections are offline, and a prefer-cloud hybrid falls back on them")
  func offlineFallsBack() async throws {
    let refusing = try Sockets.refusingPort()
    defer { close(refusing.descriptor) }
    let cloud = OpenAIModel(name: "m", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:\(refusing.port)/v1")!,
                            configuration: .init(connectTimeout: .seconds(30), retryPolicy: .none))
    let outcome = await GenerationOutcome.collect(cloud.generate(request()))
    #expect(outcome.openAIError?.offlineReason == .connectionRefused, "\(String(describing: outcome.error))")

    let resetting = try await TestHTTPServer.start(replying: .reset)
    defer { Task { await resetting.stop() } }
    let reset = await GenerationOutcome.collect(openAIModel(resetting, retryPolicy: .none).generate(request()))
    #expect(reset.openAIError?.offlineReason == .connectionReset, "\(String(describing: reset.error))")

    let device = ScriptedLanguageModel(identifier: "device") { _, _ in [.textDelta("from the device")] }
    let session = GenerativeModelSession(model: .hybrid(primary: cloud, secondary: device))
    let response = try await session.respond(to: "Hi")
    #expect(response.content == "from the device")
    #expect(response.rawResponse.fallback?.reason == .offline(.connectionRefused))
  }

  @Test("a session turns a refusal into GenerationError.refusal with the model's explanation, and keeps no turn")
  func refusalInASession() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      chunk(role: "assistant"), chunk(refusal: "I cannot help with that."), chunk(finish: "stop"), "[DONE]",
    ]))
    defer { Task { await server.stop() } }
    let session = GenerativeModelSession(model: openAIModel(server, retryPolicy: .none))
    await #expect {
      try await session.respond(to: "Something forbidden")
    } throws: { error in
      guard case GenerationError.refusal(let explanation) = error else { return false }
      return explanation == "I cannot help with that."
    }
    #expect(session.transcript.isEmpty)
  }

  @Test("a server error is not a reason to fall back: prefer cloud throws it")
  func serverErrorsDoNotFallBack() async throws {
    let server = try await TestHTTPServer.start(replying: .json(#"{"error": {"message": "boom", "type": "server_error"}}"#, status: 500))
    defer { Task { await server.stop() } }
    let device = ScriptedLanguageModel(identifier: "device") { _, _ in [.textDelta("from the device")] }
    let session = GenerativeModelSession(model: .hybrid(primary: openAIModel(server, retryPolicy: .none), secondary: device))
    await #expect(throws: OpenAIError.self) { try await session.respond(to: "Hi") }
    #expect(device.requestCount == 0)
  }

  @Test("cancelling the consuming task closes the connection", .timeLimit(.minutes(5)))
  func cancellation() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([chunk(content: "first")], end: .hang))
    defer { Task { await server.stop() } }
    let model = openAIModel(server)
    let (firstDelta, signal) = AsyncStream.makeStream(of: String.self)
    let consumer = Task {
      for try await event in model.generate(request()) {
        if case .textDelta(let text) = event { signal.yield(text) }
      }
    }
    var iterator = firstDelta.makeAsyncIterator()
    #expect(await iterator.next() == "first")
    consumer.cancel()
    _ = await consumer.result
    #expect(await server.wait { $0.closedConnections >= 1 })
  }

  @Test("models: the list and one model, through OpenAIClient")
  func models() async throws {
    let server = try await TestHTTPServer.start { request, _ in
      request.path == "/v1/models"
        ? .json(#"{"object": "list", "data": [{"id": "a", "object": "model", "created": 1, "owned_by": "me"}, {"id": "b/c"}]}"#)
        : .json(#"{"id": "b/c", "object": "model"}"#)
    }
    defer { Task { await server.stop() } }
    let client = openAIModel(server).client
    #expect(try await client.listModels().data.map(\.id) == ["a", "b/c"])
    #expect(try await client.model(id: "b/c").id == "b/c")
    #expect(server.requests.last?.path == "/v1/models/b%2Fc")
  }
}
