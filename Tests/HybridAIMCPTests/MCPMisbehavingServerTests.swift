import Foundation
import HybridAI
@testable import HybridAIMCP
import HybridAIServerTestSupport
import HybridAITestSupport
import Logging
import Testing

/// Servers that break the protocol (Servers/misbehaving_server.py): each is a typed error that
/// names the server, or a warning and a skipped message, and the session goes on.
@Suite("MCP servers that break the protocol", .serialized)
struct MCPMisbehavingServerTests {
  let context = ToolContext(callID: "1", transcript: Transcript(entries: []))

  /// The toolbox of the misbehaving server in `mode`, and what it logs.
  func connectRecordingTheLog(to mode: String) async throws -> (MCPToolbox, RecordingLogHandler.Records) {
    let records = RecordingLogHandler.Records()
    let logger = Logger(label: "tests.mcp") { RecordingLogHandler(label: $0, records: records) }
    let toolbox = try await MCPToolbox.connect([MCPTestServers.misbehaving(mode)], requestTimeout: MCPTestServers.requestTimeout,
                                               logger: logger)
    return (toolbox, records)
  }

  @Test("a line of plain text on stdout before the messages: skipped with a warning that quotes it; the server works")
  func banner() async throws {
    let (toolbox, records) = try await connectRecordingTheLog(to: "banner")
    defer { Task { await toolbox.close() } }
    let echo = try #require(toolbox.mcpTools.first { $0.name == "echo" })
    #expect(try await echo.call(arguments: GeneratedContent(["text": "hi"]), context: context).description == "hi")
    let warning = records.all.first { $0.message.contains("not JSON-RPC") }
    #expect(warning?.level == .warning && warning?.metadata["server"] == "banner", "\(records.all.map(\.message))")
    #expect(warning?.metadata["line"]?.description.hasPrefix("misbehaving server ready") == true)
  }

  @Test("a server that answers in plain text: initialize fails at its time limit (10 s, room for a Python start on a busy machine), quoting what the server wrote")
  func plainTextAnswers() async throws {
    await #expect {
      _ = try await MCPToolbox.connect([MCPTestServers.misbehaving("noise")], requestTimeout: .seconds(10))
    } throws: { error in
      guard case .initializationFailed(let server, let reason)? = error as? MCPError else { return false }
      return server == "noise" && reason.contains("within 10 s") && reason.contains("hello from a server that does not speak JSON")
    }
  }

  @Test("an unknown protocol version in the answer to initialize: refused with the version, the server stopped")
  func unknownProtocolVersion() async throws {
    await #expect(throws: MCPError.unsupportedProtocolVersion(server: "old-version", version: "1999-01-01")) {
      _ = try await MCPToolbox.connect([MCPTestServers.misbehaving("old-version")], requestTimeout: MCPTestServers.requestTimeout)
    }
    #expect("\(MCPError.unsupportedProtocolVersion(server: "s", version: "1999-01-01"))".contains("2025-06-18"))
  }

  @Test("tools whose input schema is not a JSON Schema of an object: not offered, each refused by name with why; the good tool works in a session")
  func malformedToolSchemas() async throws {
    let (toolbox, records) = try await connectRecordingTheLog(to: "bad-schema")
    defer { Task { await toolbox.close() } }
    #expect(toolbox.mcpTools.map(\.name) == ["echo"])
    let refused = toolbox.refusedTools
    #expect(refused.count == 2, "\(refused)")
    #expect(refused.contains(.invalidToolSchema(server: "bad-schema", tool: "broken",
                                                reason: "is not a JSON Schema: `/properties` is a string, not an object of schemas")), "\(refused)")
    #expect(refused.contains(.invalidToolSchema(server: "bad-schema", tool: "scalar", reason: "describes \"number\", not an object of arguments")))
    #expect(records.all.filter { $0.level == .warning && $0.message.contains("is not offered") }.count == 2)

    let model = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "c1", toolName: "echo", arguments: GeneratedContent(["text": "still here"]))]),
      .text("Done."),
    ])
    let session = GenerativeModelSession(model: model, toolCatalogs: [toolbox])
    #expect(try await session.respond(to: "Echo.").content == "Done.")
    #expect(model.requests.first?.tools.map(\.name) == ["echo"])
  }

  @Test("a response to a request never made: dropped with a warning naming its id; the call it came before is answered")
  func responseToNoRequest() async throws {
    let (toolbox, records) = try await connectRecordingTheLog(to: "stray-id")
    defer { Task { await toolbox.close() } }
    let echo = try #require(toolbox.mcpTools.first { $0.name == "echo" })
    #expect(try await echo.call(arguments: GeneratedContent(["text": "one"]), context: context).description == "one")
    #expect(try await echo.call(arguments: GeneratedContent(["text": "two"]), context: context).description == "two")
    let stray = records.all.filter { $0.level == .warning && $0.metadata["id"]?.description == "424242" }
    #expect(stray.count == 2 && stray.allSatisfy { $0.metadata["server"] == "stray-id" }, "\(records.all.map(\.message))")
  }

  @Test("Streamable HTTP closed after a progress event, before the result: the call fails at once, the model is told, the next call is answered")
  func streamClosedMidResult() async throws {
    let port = try Sockets.freeLoopbackPort()
    let process = try await MCPTestServers.startHTTPServer([MCPTestServers.misbehavingScript, "--mode", "cut-stream", "--http", String(port)], port: port)
    defer { Task { _ = await process.stop() } }
    let toolbox = try await MCPToolbox.connect([MCPServerConfiguration(name: "cut", url: URL(string: "http://127.0.0.1:\(port)/mcp")!)],
                                               requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let echo = try #require(toolbox.mcpTools.first { $0.name == "echo" })
    let started = ContinuousClock.now
    await #expect {
      _ = try await echo.call(arguments: GeneratedContent(["text": "cut"]), context: context)
    } throws: { error in
      guard case .requestFailed(let server, let method, let reason)? = error as? MCPError else { return false }
      return server == "cut" && method == "tools/call echo" && reason.contains("closed the HTTP stream before the result")
    }
    #expect(ContinuousClock.now - started < MCPTestServers.requestTimeout, "failed at once, not at the time limit")

    let model = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "c1", toolName: "echo", arguments: GeneratedContent(["text": "cut"]))]),
      .toolCalls([Transcript.ToolCall(id: "c2", toolName: "echo", arguments: GeneratedContent(["text": "whole"]))]),
      .text("Done."),
    ])
    let session = GenerativeModelSession(model: model, tools: toolbox.tools)
    #expect(try await session.respond(to: "Echo twice.").content == "Done.")
    let outputs = session.transcript.compactMap { entry -> String? in
      if case .toolOutput = entry { return entry.text } else { return nil }
    }
    #expect(outputs.count == 2 && outputs[0].contains("closed the HTTP stream") && outputs[1] == "whole", "\(outputs)")
  }
}
