import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// A served model that runs the operator's tools itself (`ServedModel.runningTools(of:)`, what
/// `hybrid serve --mcp-api-model` turns on): through both APIs, in memory and over loopback, with a scripted
/// model and recording tools behind it.
@Suite("Server: tools the server runs itself (scripted model)")
struct ServerToolTests {
  /// The operator's tools: `clock` answers "12:00"; `broken` fails.
  final class OperatorTools: ToolCatalog {
    let clock = RecordingTool(name: "clock", description: "The time now") { _ in "12:00" }
    let broken = RecordingTool(name: "broken", description: "Always fails") { _ in
      throw CocoaError(.fileReadNoPermission)
    }
    var tools: [any Tool] { [clock, broken] }
  }

  static func call(_ tool: String, id: String = "call_1") -> GenerationEvent {
    .toolCalls([Transcript.ToolCall(id: id, toolName: tool, arguments: GeneratedContent(JSONValue.object([:])))])
  }

  /// The tool outputs in a request's transcript, in order.
  static func outputs(_ request: GenerationRequest) -> [Transcript.ToolOutput] {
    request.transcript.entries.compactMap { if case .toolOutput(let output) = $0 { output } else { nil } }
  }

  static func start(_ tools: OperatorTools, maximumRounds: Int = 8, transport: ServerTransport,
                    script: @escaping ScriptedLanguageModel.Script) async throws -> ScriptedServer {
    try await ScriptedServer.start(ScriptedLanguageModel.served(script: script), transport: transport,
                                   serverTools: (catalog: tools, maximumRounds: maximumRounds))
  }

  @Test("a call of the server's tool is run on the server: the client gets the answer made with its output, usage summed", arguments: ServerTransport.allCases)
  func serverToolRound(over transport: ServerTransport) async throws {
    let tools = OperatorTools()
    let server = try await Self.start(tools, transport: transport) { request, index in
      index == 0 ? [.textDelta("Checking. "), Self.call("clock")]
        : [.textDelta("It is \(Self.outputs(request).first?.segments.text ?? "?").")]
    }
    defer { Task { await server.stop() } }
    let reply = try await OpenAIServerTests.chat(server, ["model": ScriptedServer.modelName, "messages": OpenAIServerTests.hello])
    #expect(reply.status == 200, "\(reply.text)")
    let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first)
    let message = try #require(choice["message"] as? [String: Any])
    let content = try #require(message["content"] as? String)
    #expect(content == "Checking. It is 12:00.", "\(content)")
    #expect(message["tool_calls"] == nil && choice["finish_reason"] as? String == "stop")
    #expect(tools.clock.calls.count == 1)
    let usage = try #require(try reply.json["usage"] as? [String: Any])
    #expect(usage["prompt_tokens"] as? Int == 40, "two rounds of 20 prompt tokens")

    let requests = server.model.requests
    #expect(requests.count == 2)
    #expect(requests.first.map { Set($0.tools.map(\.name)) } == ["clock", "broken"], "the server's tools are offered")
    let outputs = try #require(requests.last.map(Self.outputs))
    #expect(outputs.map(\.toolName) == ["clock"] && outputs.first?.isError == false)
  }

  @Test("a failing server tool gives the model an error output; the answer goes on", arguments: ServerTransport.allCases)
  func failingTool(over transport: ServerTransport) async throws {
    let tools = OperatorTools()
    let server = try await Self.start(tools, transport: transport) { request, index in
      index == 0 ? [Self.call("broken")] : [.textDelta(Self.outputs(request).first?.isError == true ? "It failed." : "?")]
    }
    defer { Task { await server.stop() } }
    let reply = try await OpenAIServerTests.chat(server, ["model": ScriptedServer.modelName, "messages": OpenAIServerTests.hello])
    let message = (try reply.json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any]
    #expect(message?["content"] as? String == "It failed.", "\(reply.text)")
    #expect(tools.broken.calls.count == 1)
  }

  @Test("the client's own tools go back to the client, as without server tools; a client tool of the same name wins", arguments: ServerTransport.allCases)
  func clientTools(over transport: ServerTransport) async throws {
    let tools = OperatorTools()
    let server = try await Self.start(tools, transport: transport) { _, _ in [Self.call("clock", id: "call_client")] }
    defer { Task { await server.stop() } }
    let clientClock: [String: Any] = ["type": "function", "function": [
      "name": "clock", "description": "The client's clock", "parameters": ["type": "object", "properties": [String: Any]()]]]
    let reply = try await OpenAIServerTests.chat(server, [
      "model": ScriptedServer.modelName, "messages": OpenAIServerTests.hello, "tools": [clientClock]])
    let choice = try #require((try reply.json["choices"] as? [[String: Any]])?.first, "\(reply.text)")
    let calls = (choice["message"] as? [String: Any])?["tool_calls"] as? [[String: Any]]
    #expect(calls?.first?["id"] as? String == "call_client" && choice["finish_reason"] as? String == "tool_calls")
    #expect(tools.clock.calls.isEmpty, "the server's clock is not run")
    let offered = server.model.requests.first?.tools ?? []
    #expect(offered.filter { $0.name == "clock" }.map(\.description) == ["The client's clock"])
    #expect(offered.contains { $0.name == "broken" })
  }

  @Test("after the last round allowed the model must answer (tool choice none), streamed through the Gemini API", arguments: ServerTransport.allCases)
  func roundLimit(over transport: ServerTransport) async throws {
    let tools = OperatorTools()
    let server = try await Self.start(tools, maximumRounds: 2, transport: transport) { request, _ in
      request.options.toolChoice == ToolChoice.none ? [.textDelta("Done.")] : [Self.call("clock")]
    }
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, server.url("streamGenerateContent?alt=sse"), json: HTTP.generateBody("Hi"))
    #expect(reply.status == 200 && reply.text.contains("Done."), "\(reply.text)")
    #expect(tools.clock.calls.count == 2)
    #expect(server.model.requests.map { $0.options.toolChoice == ToolChoice.none } == [false, false, true])
  }
}
