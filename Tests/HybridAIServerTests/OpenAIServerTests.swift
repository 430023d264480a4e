import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import Testing

/// The OpenAI Chat Completions API of `hybrid serve` (`/v1beta/openai/`) with a scripted model
/// behind it, over a socket and in memory: answers, streams, tool calls both ways, response
/// formats, and OpenAI's errors.
@Suite("Server: the OpenAI API (scripted model)")
struct OpenAIServerTests {
  static func url(_ server: ScriptedServer, _ path: String) -> URL {
    URL(string: "\(server.baseURL.absoluteString)/v1beta/openai/\(path)")!
  }

  static func chat(_ server: ScriptedServer, _ body: [String: Any], headers: [String: String] = [:]) async throws -> TestHTTP.Reply {
    try await TestHTTP.send(.POST, url(server, "chat/completions"), headers: headers, json: body)
  }

  static var hello: [[String: Any]] { [["role": "system", "content": "Be brief."], ["role": "user", "content": "Hi"]] }

  /// The `data:` payloads of a stream, in order; `[DONE]` as the string itself. Events end with
  /// `\n\n` as OpenAI's do (never `\r\n`: some clients split on `\n\n` only).
  static func events(_ reply: TestHTTP.Reply) throws -> [Any] {
    #expect(!reply.text.contains("\r"), "OpenAI events end with \\n\\n")
    return try reply.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { event in
      let payload = try #require(event.hasPrefix("data: ") ? String(event.dropFirst(6)) : nil, "not an SSE event: \(event)")
      if payload == "[DONE]" { return payload }
      return try JSONSerialization.jsonObject(with: Data(payload.utf8))
    }
  }

  /// A client reading a streamed answer to `body` to its end; cancel the task to go away mid-stream.
  static func reading(_ server: ScriptedServer, _ body: [String: Any]) throws -> Task<Void, any Error> {
    let data = try JSONSerialization.data(withJSONObject: body)
    return Task {
      var request = HTTPClientRequest(url: url(server, "chat/completions").absoluteString)
      request.method = .POST
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: data))
      let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(120))
      for try await _ in response.body {}
    }
  }

  static func error(_ reply: TestHTTP.Reply) throws -> [String: Any] {
    try #require(try reply.json["error"] as? [String: Any], "no error envelope: \(reply.text)")
  }

  @Test("a unary answer: the assistant's text, finish reason, usage, the served model's name; instructions and options reach the model",
        arguments: ServerTransport.allCases)
  func unaryAnswer(transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("Hello"), .textDelta(" there")] },
                                                transport: transport)
    defer { Task { await server.stop() } }
    let reply = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": Self.hello,
                                             "temperature": 0, "max_completion_tokens": 7, "stop": "END", "seed": 3])
    #expect(reply.status == 200, "\(reply.text)")
    let json = try reply.json
    #expect(json["object"] as? String == "chat.completion")
    #expect(json["model"] as? String == ScriptedServer.modelName)
    #expect((json["id"] as? String)?.hasPrefix("chatcmpl-") == true)
    let choice = try #require((json["choices"] as? [[String: Any]])?.first)
    #expect(choice["finish_reason"] as? String == "stop")
    let message = try #require(choice["message"] as? [String: Any])
    #expect(message["role"] as? String == "assistant" && message["content"] as? String == "Hello there")
    let usage = try #require(json["usage"] as? [String: Any])
    #expect(usage["prompt_tokens"] as? Int == 20 && usage["completion_tokens"] as? Int == 4 && usage["total_tokens"] as? Int == 24)

    let request = try #require(server.model.requests.last)
    #expect(request.options.sampling == .greedy)
    #expect(request.options.maximumResponseTokens == 7 && request.options.stopSequences == ["END"])
    guard case .instructions(let instructions)? = request.transcript.first else {
      Issue.record("no instructions first: \(request.transcript)")
      return
    }
    #expect(instructions.segments.text == "Be brief.")
    #expect(request.transcript.last?.text == "Hi")
  }

  @Test("a stream: the role first, one chunk per delta, the finish reason, the usage chunk, then [DONE]",
        arguments: ServerTransport.allCases)
  func streamedAnswer(transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("One"), .textDelta(", two")] },
                                                transport: transport)
    defer { Task { await server.stop() } }
    let reply = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": Self.hello, "stream": true,
                                             "stream_options": ["include_usage": true]])
    #expect(reply.status == 200 && reply.contentType?.hasPrefix("text/event-stream") == true, "\(reply.text)")
    let events = try Self.events(reply)
    #expect(events.last as? String == "[DONE]")
    let chunks = events.compactMap { $0 as? [String: Any] }
    #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
    let deltas = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any] }
    #expect(deltas.first?["role"] as? String == "assistant")
    #expect(deltas.compactMap { $0["content"] as? String }.joined() == "One, two")
    let finish = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String }
    #expect(finish == ["stop"])
    let usage = try #require(chunks.last?["usage"] as? [String: Any])
    #expect((chunks.last?["choices"] as? [Any])?.isEmpty == true)
    #expect(usage["completion_tokens"] as? Int == 4)
  }

  @Test("tools: the model's call goes out with JSON arguments and finish_reason tool_calls (unary and streamed); the result comes back as the call's output", arguments: ServerTransport.allCases)
  func toolCallsBothWays(over transport: ServerTransport) async throws {
    // Calls get_weather unless the conversation ends with the tool's output.
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { request, _ in
      if case .toolOutput? = request.transcript.last { return ToolServerTests.callThenAnswer(request, 1) }
      return ToolServerTests.callThenAnswer(request, 0)
    }, transport: transport)
    defer { Task { await server.stop() } }
    let tools: [[String: Any]] = [["type": "function", "function": [
      "name": "get_weather", "description": "The weather in a city",
      "parameters": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]]]]]
    let question: [[String: Any]] = [["role": "user", "content": "Weather in Paris?"]]
    let first = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": question, "tools": tools,
                                             "tool_choice": ["type": "function", "function": ["name": "get_weather"]]])
    #expect(first.status == 200, "\(first.text)")
    let choice = try #require((try first.json["choices"] as? [[String: Any]])?.first)
    #expect(choice["finish_reason"] as? String == "tool_calls")
    let message = try #require(choice["message"] as? [String: Any])
    #expect(message["content"] is NSNull)
    let call = try #require((message["tool_calls"] as? [[String: Any]])?.first)
    let function = try #require(call["function"] as? [String: Any])
    #expect(call["id"] as? String == "call_paris" && call["type"] as? String == "function")
    #expect(function["name"] as? String == "get_weather")
    let arguments = try JSONSerialization.jsonObject(with: Data(try #require(function["arguments"] as? String).utf8))
    #expect((arguments as? [String: String]) == ["city": "Paris"])
    let received = try #require(server.model.requests.first)
    #expect(received.tools.map(\.name) == ["get_weather"])
    #expect(received.options.toolChoice == .required(tools: ["get_weather"]))

    // The client runs the tool and sends the result: the model sees its call and the output.
    let followUp = question + [message, ["role": "tool", "tool_call_id": "call_paris", "content": "sunny, 24 °C"]]
    let second = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": followUp, "tools": tools])
    let answer = try second.json["choices"] as? [[String: Any]]
    #expect((answer?.first?["message"] as? [String: Any])?["content"] as? String == "It is sunny.")
    let resumed = try #require(server.model.requests.last)
    guard case .toolCalls(let calls) = resumed.transcript.entries[1], case .toolOutput(let output) = resumed.transcript.entries[2] else {
      Issue.record("unexpected transcript: \(resumed.transcript)")
      return
    }
    #expect(calls.calls.map(\.id) == ["call_paris"])
    #expect(output.callID == "call_paris" && output.toolName == "get_weather" && output.segments.text == "sunny, 24 °C")

    // Streamed: the call comes whole in one delta, then finish_reason tool_calls.
    let streamed = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": question, "tools": tools,
                                                "stream": true])
    let chunks = try Self.events(streamed).compactMap { $0 as? [String: Any] }
    let callDeltas = chunks.compactMap { (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["tool_calls"] as? [[String: Any]] }
    #expect(callDeltas.count == 1)
    #expect(callDeltas.first?.first?["id"] as? String == "call_paris")
    #expect(chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String } == ["tool_calls"])
  }

  @Test("response_format: json_schema reaches the model as its response format; json_object as any object", arguments: ServerTransport.allCases)
  func responseFormats(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta(#"{"city":"Rome"}"#)] }, transport: transport)
    defer { Task { await server.stop() } }
    let schema: [String: Any] = ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]]
    _ = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": Self.hello,
                                     "response_format": ["type": "json_schema", "json_schema": ["name": "guide", "schema": schema]]])
    let format = try #require(server.model.requests.last?.responseFormat)
    #expect(format.name == "guide")
    #expect(format.schema.jsonSchema == (try JSONDecoder().decode(JSONValue.self, from: JSONSerialization.data(withJSONObject: schema))))
    _ = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": Self.hello,
                                     "response_format": ["type": "json_object"]])
    #expect(server.model.requests.last?.responseFormat?.schema.jsonSchema == ["type": "object"])
  }

  @Test("errors in OpenAI's envelope: unknown model 404, n beyond 1…16, malformed JSON and messages, arguments that are not JSON, image parts: 400 naming the field",
        arguments: ServerTransport.allCases)
  func errors(transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("x")] }, transport: transport)
    defer { Task { await server.stop() } }
    let model = ScriptedServer.modelName

    let unknown = try await Self.chat(server, ["model": "gpt-nothing", "messages": Self.hello])
    #expect(unknown.status == 404)
    #expect(try Self.error(unknown)["code"] as? String == "model_not_found")
    #expect(try Self.error(unknown)["param"] as? String == "model")

    let cases: [(body: [String: Any], param: String?, says: String)] = [
      (["model": model, "messages": Self.hello, "n": 17], "n", "between 1 and 16"),
      (["model": model, "messages": Self.hello, "n": 0], "n", "between 1 and 16"),
      (["model": model, "messages": [["role": "tool", "tool_call_id": "nope", "content": "x"]]], "messages", "tool call"),
      (["model": model, "messages": [["role": "wizard", "content": "x"]]], "messages", "wizard"),
      (["model": model, "messages": [
        ["role": "user", "content": "Hi"],
        ["role": "assistant", "tool_calls": [["id": "c1", "type": "function", "function": ["name": "f", "arguments": "{}"]]]]]],
       "messages", "tool calls"),
      (["model": model, "messages": [[String: Any]]()], "messages", "empty"),
      (["model": model, "messages": [
        ["role": "user", "content": "Hi"],
        ["role": "assistant", "tool_calls": [["id": "c1", "type": "function", "function": ["name": "f", "arguments": "{not json"]]]],
        ["role": "tool", "tool_call_id": "c1", "content": "x"]]], "messages", "not JSON"),
      (["model": model, "messages": [["role": "user", "content": [["type": "image_url", "image_url": ["url": "data:image/png;base64,AAAA"]]]]]],
       "messages", "image/png"),
      (["model": model, "messages": Self.hello, "tool_choice": ["type": "function", "function": ["name": "ghost"]]], "tool_choice", "ghost"),
      (["model": model, "messages": Self.hello, "temperature": 7], "temperature", "between 0 and 2"),
      (["model": model, "messages": Self.hello, "logprobs": true, "top_logprobs": 21], "top_logprobs", "between 0 and 20"),
      (["model": model, "messages": Self.hello, "top_logprobs": 2], "top_logprobs", "logprobs must be true"),
    ]
    for (body, param, says) in cases {
      let reply = try await Self.chat(server, body)
      #expect(reply.status == 400, "\(body): \(reply.text)")
      let error = try Self.error(reply)
      #expect(error["type"] as? String == "invalid_request_error")
      #expect(error["param"] as? String == param, "\(reply.text)")
      #expect((error["message"] as? String)?.contains(says) == true, "\(reply.text)")
    }

    let malformed = try await TestHTTP.send(.POST, Self.url(server, "chat/completions"),
                                            headers: ["content-type": "application/json"], body: Data("{\"model\": ".utf8))
    #expect(malformed.status == 400)
    #expect(try Self.error(malformed)["type"] as? String == "invalid_request_error")
    #expect(server.model.requestCount == 0, "no bad request reached the model")
  }

  @Test("models: the list and one model; an unknown one is 404 in OpenAI's envelope", arguments: ServerTransport.allCases)
  func models(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [] }, transport: transport)
    defer { Task { await server.stop() } }
    let list = try await TestHTTP.send(.GET, Self.url(server, "models"))
    #expect(try list.json["object"] as? String == "list")
    let data = try #require(try list.json["data"] as? [[String: Any]])
    #expect(data.map { $0["id"] as? String } == [ScriptedServer.modelName])
    #expect(data.first?["object"] as? String == "model" && data.first?["owned_by"] as? String == "hybrid-serve")
    let one = try await TestHTTP.send(.GET, Self.url(server, "models/\(ScriptedServer.modelName)"))
    #expect(try one.json["id"] as? String == ScriptedServer.modelName)
    let missing = try await TestHTTP.send(.GET, Self.url(server, "models/nothing"))
    #expect(missing.status == 404)
    #expect(try Self.error(missing)["code"] as? String == "model_not_found")
  }

  @Test("base URL /v1: chat completions in OpenAI's shape and envelope; GET /v1/models holds both APIs' lists, /v1beta/models Gemini's alone", arguments: ServerTransport.allCases)
  func conventionalBaseURL(over transport: ServerTransport) async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("Hello")] }, transport: transport)
    defer { Task { await server.stop() } }
    let base = server.baseURL.absoluteString
    let reply = try await TestHTTP.send(.POST, URL(string: "\(base)/v1/chat/completions")!,
                                        json: ["model": ScriptedServer.modelName, "messages": Self.hello])
    #expect(reply.status == 200, "\(reply.text)")
    #expect(try reply.json["object"] as? String == "chat.completion")
    let message = try #require(((try reply.json["choices"] as? [[String: Any]])?.first)?["message"] as? [String: Any])
    #expect(message["content"] as? String == "Hello")
    let unknown = try await TestHTTP.send(.POST, URL(string: "\(base)/v1/chat/completions")!,
                                          json: ["model": "gpt-nothing", "messages": Self.hello])
    #expect(unknown.status == 404)
    #expect(try Self.error(unknown)["code"] as? String == "model_not_found", "OpenAI's envelope, not Google's: \(unknown.text)")

    let list = try await TestHTTP.send(.GET, URL(string: "\(base)/v1/models")!)
    #expect(try list.json["object"] as? String == "list")
    #expect((try list.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [ScriptedServer.modelName])
    #expect((try list.json["models"] as? [[String: Any]])?.map { $0["name"] as? String } == ["models/\(ScriptedServer.modelName)"])
    let one = try await TestHTTP.send(.GET, URL(string: "\(base)/v1/models/\(ScriptedServer.modelName)")!)
    #expect(try one.json["id"] as? String == ScriptedServer.modelName && one.json["owned_by"] as? String == "hybrid-serve")
    #expect(try one.json["name"] as? String == "models/\(ScriptedServer.modelName)" && one.json["inputTokenLimit"] is Int)
    let beta = try await TestHTTP.send(.GET, URL(string: "\(base)/v1beta/models")!)
    #expect(try beta.json["models"] != nil && beta.json["data"] == nil, "v1beta is Gemini's alone, as Google's")
  }

  @Test("n choices streamed: each choice's role, text and finish under its index, one usage for all; a client that leaves stops every choice; a failing choice ends the stream with an error event")
  func severalChoicesStreamed() async throws {
    let model = ScriptedLanguageModel(identifier: "scripted-1", modelVersion: "scripted-1") { request, _ in
      [.textDelta("seed \(request.options.sampling.map { "\($0)" } ?? "none")"), .textDelta(".")]
    }
    let server = try await ScriptedServer.start(model)
    defer { Task { await server.stop() } }
    let reply = try await Self.chat(server, ["model": ScriptedServer.modelName, "messages": Self.hello, "stream": true, "n": 3,
                                             "seed": 7, "top_p": 0.9, "stream_options": ["include_usage": true]])
    let chunks = try Self.events(reply).compactMap { $0 as? [String: Any] }
    var texts: [Int: String] = [:], roles: [Int: String] = [:], finishes: [Int: String] = [:]
    for chunk in chunks {
      for choice in chunk["choices"] as? [[String: Any]] ?? [] {
        let index = try #require(choice["index"] as? Int), delta = choice["delta"] as? [String: Any] ?? [:]
        if let role = delta["role"] as? String { roles[index] = role }
        texts[index, default: ""] += delta["content"] as? String ?? ""
        if let finish = choice["finish_reason"] as? String { finishes[index] = finish }
      }
    }
    #expect(roles == [0: "assistant", 1: "assistant", 2: "assistant"] && finishes == [0: "stop", 1: "stop", 2: "stop"])
    #expect(Set(texts.values).count == 3, "each choice its own seed: \(texts)")
    #expect(texts[0]?.contains("7") == true && texts[1]?.contains("8") == true && texts[2]?.contains("9") == true, "\(texts)")
    let usage = try #require(chunks.last?["usage"] as? [String: Any])
    #expect(usage["prompt_tokens"] as? Int == 10 && usage["completion_tokens"] as? Int == 6, "the prompt once, every choice's tokens")

    // The client leaves: all three generations stop.
    let slow = ScriptedLanguageModel(identifier: "scripted-1", modelVersion: "scripted-1", delay: .milliseconds(20)) { _, _ in
      (0..<500).map { GenerationEvent.textDelta("word \($0) ") }
    }
    let slowServer = try await ScriptedServer.start(slow)
    defer { Task { await slowServer.stop() } }
    let reader = try Self.reading(slowServer, ["model": ScriptedServer.modelName, "messages": Self.hello, "stream": true, "n": 3])
    while slow.recording.deltasSent < 6 { try await Task.sleep(for: .milliseconds(5)) }
    reader.cancel()
    _ = await reader.result
    let deadline = ContinuousClock.now + .seconds(60)
    while slow.recording.cancellations < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(slow.recording.cancellations == 3, "every choice stops when the client leaves")

    // A choice that fails mid-answer: the stream ends with the error event, no [DONE].
    struct Broken: Error {}
    let failing = ScriptedLanguageModel(identifier: "scripted-1", modelVersion: "scripted-1", failure: Broken(), failAfterEvents: 1) { _, _ in
      [.textDelta("a"), .textDelta("b")]
    }
    let failingServer = try await ScriptedServer.start(failing)
    defer { Task { await failingServer.stop() } }
    let failed = try Self.events(try await Self.chat(failingServer, ["model": ScriptedServer.modelName, "messages": Self.hello,
                                                                    "stream": true, "n": 2]))
    #expect((failed.last as? [String: Any])?["error"] != nil, "\(failed)")
  }

  @Test("a client that leaves mid-stream stops the generation at once; 64 concurrent streams are all answered whole")
  func disconnectAndLoad() async throws {
    let slow = ScriptedLanguageModel(identifier: "scripted-1", modelVersion: "scripted-1", delay: .milliseconds(20)) { _, _ in
      (0..<500).map { GenerationEvent.textDelta("word \($0) ") }
    }
    let server = try await ScriptedServer.start(slow)
    defer { Task { await server.stop() } }
    let reader = try Self.reading(server, ["model": ScriptedServer.modelName, "messages": Self.hello, "stream": true])
    while slow.recording.deltasSent < 3 { try await Task.sleep(for: .milliseconds(5)) }
    reader.cancel()   // the client goes away
    _ = await reader.result
    let deadline = ContinuousClock.now + .seconds(60)
    while !slow.recording.sawCancellation, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(slow.recording.sawCancellation, "the server kept generating after the client left")
    #expect(slow.recording.deltasSent < 500)

    // Many streams at once: every one is answered whole, none fails.
    let quick = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("a"), .textDelta("b")] })
    defer { Task { await quick.stop() } }
    let replies = try await withThrowingTaskGroup(of: TestHTTP.Reply.self) { group in
      for _ in 0..<64 {
        group.addTask {
          try await Self.chat(quick, ["model": ScriptedServer.modelName, "messages": Self.hello, "stream": true])
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(replies.count == 64)
    for reply in replies {
      #expect(reply.status == 200)
      #expect(try Self.events(reply).last as? String == "[DONE]")
    }
  }
}
