import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Tools and structured output end to end with the real on-device model: a `GeminiModel` session
/// talks to our server, which answers with the bootstrap's SmolLM2. These depend on the on-device
/// model honouring `request.tools`, `options.toolChoice` and `request.responseFormat`
/// (constrained decoding). Greedy sampling, short answers.
@Suite("Server: tools and structured output with the real on-device model", .serialized)
struct OnDeviceToolTests {
  static let greedy = GenerationConfig(temperature: 0, topK: 1, maxOutputTokens: 64)

  static func cloud(_ server: RunningTestServer) -> GeminiModel {
    server.geminiModel()
  }

  @Test("a session with a tool: the on-device model's calls reach the tool, the outputs go back with the calls' ids")
  func toolSession() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let tool = WeatherTool()
    let session = GenerativeModelSession(model: Self.cloud(server), tools: [tool],
                                         toolPolicy: ToolExecutionPolicy(maximumRounds: 2))
    var options = GenerationOptions.gemini(Self.greedy)
    options.toolChoice = .required()
    do {
      let response = try await session.respond(to: "What is the weather in Paris?", options: options)
      #expect(response.rawResponse.source == .cloud)
      #expect(response.rawResponse.modelVersion == RunningTestServer.modelName)
      let entries = session.transcript.entries
      let calls = entries.compactMap { if case .toolCalls(let calls) = $0 { calls } else { nil } }
      let outputs = entries.compactMap { if case .toolOutput(let output) = $0 { output } else { nil } }
      #expect(calls.first?.calls.first?.toolName == "get_weather")
      #expect(calls.first?.modelVersion == RunningTestServer.modelName)
      #expect(outputs.first?.callID == calls.first?.calls.first?.id)
    } catch GenerationError.toolCallLimitExceeded {
      // After the required first call the choice is automatic, and SmolLM2-135M may keep calling
      // the tool: the loop itself worked, which is what the checks below are about.
    }

    let cities = tool.cities.withLock { $0 }
    #expect(!cities.isEmpty && cities.allSatisfy { !$0.isEmpty }, "the tool ran with \(cities)")
    // Every request after the first carried the earlier calls and their outputs, with the same ids.
    let requests = server.log.requests.withLock { $0 }
    #expect(requests.count >= 2)
    for request in requests.dropFirst() {
      let parts = request.contents.flatMap(\.parts)
      let callIDs = parts.compactMap { part -> String? in
        if case .functionCall(let call)? = part.data { return call.id }
        return nil
      }
      let responseIDs = parts.compactMap { part -> String? in
        if case .functionResponse(let response)? = part.data { return response.id }
        return nil
      }
      #expect(!callIDs.isEmpty && callIDs == responseIDs)
    }
  }

  @Test("respond(to:schema:) through the server: the on-device answer is JSON of the schema")
  func structuredSession() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let schema = GenerationSchema.object(name: "Pet", properties: [
      .init(name: "name", schema: GenerationSchema(jsonSchema: ["type": "string"])),
      .init(name: "legs", schema: GenerationSchema(jsonSchema: ["type": "integer", "minimum": 0, "maximum": 8])),
      .init(name: "kind", schema: .anyOf(choices: ["cat", "dog", "bird"])),
    ])
    let session = GenerativeModelSession(model: Self.cloud(server))
    let response = try await session.respond(to: "Describe a pet.", schema: schema,
                                             options: .gemini(GenerationConfig(temperature: 0, topK: 1, maxOutputTokens: 80)))
    let content = response.content
    #expect(content.propertyNames == ["name", "legs", "kind"])
    #expect((try? content.value(String.self, forProperty: "name"))?.isEmpty == false)
    #expect((0...8).contains((try? content.value(Int.self, forProperty: "legs")) ?? -1))
    #expect(["cat", "dog", "bird"].contains((try? content.value(String.self, forProperty: "kind")) ?? ""))
    #expect(server.lastRequest?.generationConfig?.responseJsonSchema == schema.jsonSchema)
    #expect(server.lastRequest?.generationConfig?.responseMimeType == "application/json")
  }

  @Test("generateContent with a function declaration and mode ANY answers with a functionCall of the schema")
  func rawFunctionCall() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, URL(string: "\(server.baseURL.absoluteString)/v1beta/models/smollm2:generateContent")!,
                                    json: HTTP.generateBody("What is the weather in Paris?", maxOutputTokens: 64, extra: [
      "tools": [["functionDeclarations": [["name": "get_weather", "description": "The weather in a city",
                                           "parameters": ["type": "OBJECT", "properties": ["city": ["type": "STRING"]],
                                                          "required": ["city"]]]]]],
      "toolConfig": ["functionCallingConfig": ["mode": "ANY"]],
    ]))
    #expect(reply.status == 200, "\(reply.text)")
    let candidate = try #require((try reply.json["candidates"] as? [[String: Any]])?.first)
    #expect(candidate["finishReason"] as? String == "STOP")
    let parts = try #require((candidate["content"] as? [String: Any])?["parts"] as? [[String: Any]])
    let call = try #require(parts.compactMap { $0["functionCall"] as? [String: Any] }.first, "no call in \(parts)")
    #expect(call["name"] as? String == "get_weather")
    #expect(((call["args"] as? [String: Any])?["city"] as? String)?.isEmpty == false)
    #expect((call["id"] as? String)?.isEmpty == false)
  }
}
