import AsyncHTTPClient
import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import Testing

/// `hybrid serve`'s Gemini-compatible API in memory and over real HTTP on loopback, with the real model.
@Suite("Gemini-compatible server API", .serialized)
struct ServerAPITests {
  func url(_ server: RunningTestServer, _ path: String) -> URL {
    URL(string: "\(server.baseURL.absoluteString)/v1beta/\(path)")!
  }

  @Test("generateContent answers with text, true usage, finish reason and the model version", arguments: ServerTransport.allCases)
  func generateContent(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: HTTP.generateBody("Name a colour."))
    #expect(reply.status == 200)
    let json = try reply.json
    let candidate = try #require((json["candidates"] as? [[String: Any]])?.first)
    let parts = try #require((candidate["content"] as? [String: Any])?["parts"] as? [[String: Any]])
    let text = parts.compactMap { $0["text"] as? String }.joined()
    #expect(!text.isEmpty)
    #expect(json["modelVersion"] as? String == "smollm2")
    #expect((json["responseId"] as? String)?.isEmpty == false)
    let usage = try #require(json["usageMetadata"] as? [String: Any])
    let candidates = try #require(usage["candidatesTokenCount"] as? Int)
    let prompt = try #require(usage["promptTokenCount"] as? Int)
    #expect((1...12).contains(candidates))
    #expect(usage["totalTokenCount"] as? Int == prompt + candidates)
    #expect(["STOP", "MAX_TOKENS"].contains(candidate["finishReason"] as? String))

    // countTokens counts the same rendered prompt the answer's usage reports.
    let count = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"),
                                    json: ["contents": [["role": "user", "parts": [["text": "Name a colour."]]]]])
    #expect(try count.json["totalTokens"] as? Int == prompt)
  }

  @Test("countTokens of a whole request counts its tool declarations, as the answer's usage does", arguments: ServerTransport.allCases)
  func countTokensCountsTools(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let contents: [[String: Any]] = [["role": "user", "parts": [["text": "What is the weather in Oslo?"]]]]
    let tools: [[String: Any]] = [["functionDeclarations": [[
      "name": "get_weather", "description": "The current weather in a city.",
      "parametersJsonSchema": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
    ]]]]
    let bare = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: ["contents": contents])
    let whole = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: [
      "generateContentRequest": ["model": "models/smollm2", "contents": contents, "tools": tools],
    ])
    #expect(whole.status == 200, "\(whole.text)")
    let bareCount = try #require(try bare.json["totalTokens"] as? Int)
    let toolCount = try #require(try whole.json["totalTokens"] as? Int)
    #expect(toolCount > bareCount + 20, "the declaration is rendered into the prompt: \(bareCount) → \(toolCount)")

    let answer = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: [
      "contents": contents, "tools": tools, "generationConfig": ["temperature": 0, "maxOutputTokens": 1],
    ])
    #expect(answer.status == 200, "\(answer.text)")
    #expect((try answer.json["usageMetadata"] as? [String: Any])?["promptTokenCount"] as? Int == toolCount)
  }

  @Test("countTokens counts a conversation that ends with the model's turn; empty or doubled input is a 400", arguments: ServerTransport.allCases)
  func countTokensOfHistory(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let question: [String: Any] = ["role": "user", "parts": [["text": "Name a colour."]]]
    let answer: [String: Any] = ["role": "model", "parts": [["text": "Blue, like the sky on a clear summer day."]]]
    let asked = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: ["contents": [question]])
    let history = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: ["contents": [question, answer]])
    #expect(history.status == 200, "\(history.text)")
    let askedCount = try #require(try asked.json["totalTokens"] as? Int)
    let historyCount = try #require(try history.json["totalTokens"] as? Int)
    #expect(historyCount > askedCount + 8, "the answer's tokens count too: \(askedCount) → \(historyCount)")

    let empty = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: [:])
    #expect(empty.status == 400 && empty.text.contains("contents is empty"), "\(empty.text)")
    let both = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"), json: [
      "contents": [question], "generateContentRequest": ["contents": [question]],
    ])
    #expect(both.status == 400 && both.text.contains("not both"), "\(both.text)")
  }

  @Test("streamGenerateContent sends SSE chunks whose text adds up to the unary answer", arguments: ServerTransport.allCases)
  func streamMatchesUnary(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let body = HTTP.generateBody("Write one sentence about the sea.", maxOutputTokens: 20)
    let unary = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: body)
    let streamURL = URL(string: url(server, "models/smollm2:streamGenerateContent").absoluteString + "?alt=sse")!
    let streamed = try await TestHTTP.send(.POST, streamURL, json: body)
    #expect(streamed.status == 200)
    #expect(streamed.contentType?.hasPrefix("text/event-stream") == true)
    let events = try streamed.events
    #expect(events.count >= 2)
    func text(_ json: [String: Any]) -> String {
      let candidate = (json["candidates"] as? [[String: Any]])?.first
      let parts = (candidate?["content"] as? [String: Any])?["parts"] as? [[String: Any]] ?? []
      return parts.compactMap { $0["text"] as? String }.joined()
    }
    #expect(events.map(text).joined() == text(try unary.json))
    let last = try #require(events.last)
    #expect(((last["candidates"] as? [[String: Any]])?.first?["finishReason"] as? String) != nil)
    #expect((last["usageMetadata"] as? [String: Any])?["candidatesTokenCount"] as? Int
            == (try unary.json["usageMetadata"] as? [String: Any])?["candidatesTokenCount"] as? Int)

    // Without alt=sse, as Google: one JSON array of the same chunks (it was served as SSE).
    let array = try await TestHTTP.send(.POST, url(server, "models/smollm2:streamGenerateContent"), json: body)
    #expect(array.status == 200 && array.contentType?.hasPrefix("application/json") == true)
    let elements = try #require(try JSONSerialization.jsonObject(with: Data(array.text.utf8)) as? [[String: Any]], "\(array.text)")
    #expect(elements.count >= 2)
    #expect(elements.map(text).joined() == text(try unary.json))
    #expect(((elements.last?["candidates"] as? [[String: Any]])?.first?["finishReason"] as? String) != nil)
  }

  @Test("an inlineData image to a text-only served model: 400 INVALID_ARGUMENT naming the MIME type, never 500 or a silent drop", arguments: ServerTransport.allCases)
  func inlineDataToTextOnlyModel(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: [
      "contents": [["role": "user", "parts": [["text": "What is this?"], ["inlineData": ["mimeType": "image/png", "data": "iVBORw0KGgo="]]]]],
    ])
    #expect(reply.status == 400)
    let error = try #require(try reply.json["error"] as? [String: Any])
    #expect(error["status"] as? String == "INVALID_ARGUMENT")
    #expect((error["message"] as? String)?.contains("image/png") == true, "\(error)")

    // A file by URI (`fileData`), which a served model cannot fetch: the same, naming its type.
    let byURI = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: [
      "contents": [["role": "user", "parts": [["text": "Summarise."],
                                             ["fileData": ["mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"]]]]],
    ])
    #expect(byURI.status == 400)
    let uriError = try #require(try byURI.json["error"] as? [String: Any])
    #expect(uriError["status"] as? String == "INVALID_ARGUMENT")
    #expect((uriError["message"] as? String)?.contains("application/pdf") == true, "\(uriError)")
  }

  @Test("systemInstruction, multi-turn contents and generationConfig are honoured", arguments: ServerTransport.allCases)
  func requestFieldsAreHonoured(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let plain = try await TestHTTP.send(.POST, url(server, "models/smollm2:countTokens"),
                                    json: ["contents": [["role": "user", "parts": [["text": "Hello"]]]]])
    let withSystem = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: HTTP.generateBody(
      "Hello", maxOutputTokens: 3, extra: [
        // Longer than SmolLM2's own default system prompt, which it replaces.
        "systemInstruction": ["parts": [["text": "You are a pirate on a ship at sea. Answer every question like an old pirate would, and end with Arr!"]]],
      ]))
    let plainCount = try #require(try plain.json["totalTokens"] as? Int)
    let usage = try #require(try withSystem.json["usageMetadata"] as? [String: Any])
    #expect(try #require(usage["promptTokenCount"] as? Int) > plainCount)
    #expect(usage["candidatesTokenCount"] as? Int == 3)
    let candidate = try #require((try withSystem.json["candidates"] as? [[String: Any]])?.first)
    #expect(candidate["finishReason"] as? String == "MAX_TOKENS")
    #expect(server.lastRequest?.systemInstruction != nil)

    let multiTurn = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: [
      "contents": [
        ["role": "user", "parts": [["text": "My name is Ada."]]],
        ["role": "model", "parts": [["text": "Hello Ada!"]]],
        ["role": "user", "parts": [["text": "What is my name?"]]],
      ],
      "generationConfig": ["temperature": 0, "maxOutputTokens": 6, "stopSequences": ["\n"]],
    ])
    #expect(multiTurn.status == 200)
    let multiUsage = try #require(try multiTurn.json["usageMetadata"] as? [String: Any])
    #expect(try #require(multiUsage["promptTokenCount"] as? Int) > plainCount + 8)
  }

  @Test("models can be listed and described", arguments: ServerTransport.allCases)
  func listAndDescribeModels(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(transport: transport)
    defer { Task { await server.stop() } }
    let list = try await TestHTTP.send(.GET, url(server, "models"))
    let models = try #require(try list.json["models"] as? [[String: Any]])
    #expect(models.compactMap { $0["name"] as? String } == ["models/smollm2"])
    let one = try await TestHTTP.send(.GET, url(server, "models/smollm2"))
    #expect(try one.json["inputTokenLimit"] as? Int == 1024)
    #expect(try (one.json["supportedGenerationMethods"] as? [String])?.contains("streamGenerateContent") == true)
    #expect(try one.json["inputModalities"] as? [String] == ["TEXT"], "the on-device model reads text only")
    #expect(try one.json["outputModalities"] as? [String] == ["TEXT"])
    let missing = try await TestHTTP.send(.GET, url(server, "models/nope"))
    #expect(missing.status == 404 && missing.errorStatus == "NOT_FOUND")
  }

  @Test("bad requests get Google's error envelope and status names", arguments: ServerTransport.allCases)
  func badRequests(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(maxRequestBytes: 4096, transport: transport)
    defer { Task { await server.stop() } }
    let unknownModel = try await TestHTTP.send(.POST, url(server, "models/gemini-9:generateContent"), json: HTTP.generateBody("hi"))
    #expect(unknownModel.status == 404 && unknownModel.errorStatus == "NOT_FOUND")
    #expect(try (unknownModel.json["error"] as? [String: Any])?["code"] as? Int == 404)

    let invalidJSON = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), body: Data("{\"contents\": [".utf8))
    #expect(invalidJSON.status == 400 && invalidJSON.errorStatus == "INVALID_ARGUMENT")

    let noContents = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: ["contents": []])
    #expect(noContents.status == 400 && noContents.errorStatus == "INVALID_ARGUMENT")

    let endsWithModel = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: [
      "contents": [["role": "model", "parts": [["text": "hi"]]]]])
    #expect(endsWithModel.status == 400 && endsWithModel.errorStatus == "INVALID_ARGUMENT")

    let tooLarge = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"),
                                       json: HTTP.generateBody(String(repeating: "x", count: 10_000)))
    #expect(tooLarge.status == 413 && tooLarge.errorStatus == "INVALID_ARGUMENT")

    let unknownMethod = try await TestHTTP.send(.POST, url(server, "models/smollm2:noSuchMethod"), json: HTTP.generateBody("hi"))
    #expect(unknownMethod.status == 404 && unknownMethod.errorStatus == "NOT_FOUND")

    let unknownPath = try await TestHTTP.send(.GET, URL(string: "\(server.baseURL.absoluteString)/v2/whatever")!)
    #expect(unknownPath.status == 404 && unknownPath.errorStatus == "NOT_FOUND")

    // The server still answers after all that.
    let good = try await TestHTTP.send(.POST, url(server, "models/smollm2:generateContent"), json: HTTP.generateBody("hi", maxOutputTokens: 2))
    #expect(good.status == 200)
  }

  @Test("API keys: required when configured, accepted by header or ?key=", arguments: ServerTransport.allCases)
  func apiKeys(over transport: ServerTransport) async throws {
    let server = try await RunningTestServer.start(apiKeys: ["sesame"], transport: transport)
    defer { Task { await server.stop() } }
    let endpoint = url(server, "models/smollm2:generateContent")
    let body = HTTP.generateBody("hi", maxOutputTokens: 2)
    let missing = try await TestHTTP.send(.POST, endpoint, json: body)
    #expect(missing.status == 403 && missing.errorStatus == "PERMISSION_DENIED")
    let wrong = try await TestHTTP.send(.POST, endpoint, headers: ["x-goog-api-key": "open"], json: body)
    #expect(wrong.status == 400 && wrong.errorStatus == "INVALID_ARGUMENT")
    #expect(wrong.text.contains("API_KEY_INVALID"))
    let header = try await TestHTTP.send(.POST, endpoint, headers: ["x-goog-api-key": "sesame"], json: body)
    #expect(header.status == 200)
    let query = try await TestHTTP.send(.POST, URL(string: endpoint.absoluteString + "?key=sesame")!, json: body)
    #expect(query.status == 200)
    let listWithoutKey = try await TestHTTP.send(.GET, url(server, "models"))
    #expect(listWithoutKey.status == 403)
  }
}

@Suite("Gemini-compatible server lifecycle", .serialized)
struct ServerLifecycleTests {
  @Test("a client that disconnects mid-stream stops its generation")
  func disconnectStopsGeneration() async throws {
    let server = try await RunningTestServer.start(maxConcurrentSequences: 1)
    defer { Task { await server.stop() } }
    let url = "\(server.baseURL.absoluteString)/v1beta/models/smollm2:streamGenerateContent?alt=sse"
    let body = HTTP.generateBody("Write a very long story about the sea, with many chapters.", maxOutputTokens: 900)
    let reader = Task {
      var request = HTTPClientRequest(url: url)
      request.method = .POST
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
      let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(600))
      for try await _ in response.body {}
    }
    func generation() -> ObservedBatchedModel.Generation? { server.model.generations.first }
    while (generation()?.deltas ?? 0) < 3 { try await Task.sleep(for: .milliseconds(5)) }
    reader.cancel()                       // the client goes away
    _ = await reader.result

    let deadline = ContinuousClock.now + .seconds(300)   // generous: the whole suite shares two cores
    while generation()?.ended != true, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    let ended = try #require(generation())
    #expect(ended.cancelled && !ended.completed, "the server kept generating after the client left")
    #expect(ended.deltas < 900)

    // The only sequence is free again: the next request is answered.
    let next = try await TestHTTP.send(.POST, URL(string: "\(server.baseURL.absoluteString)/v1beta/models/smollm2:generateContent")!,
                                   json: HTTP.generateBody("Hi", maxOutputTokens: 2))
    #expect(next.status == 200)
  }
}
