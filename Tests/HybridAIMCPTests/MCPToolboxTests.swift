import Foundation
import Synchronization
import HybridAI
@testable import HybridAIMCP
import HybridAIProcess
import Logging
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// MCP servers as session tools, against real servers over stdio: the reference `mcp-server-time`
/// and the tests' own server (the official Python SDK).
@Suite("MCP servers as tools", .serialized)
struct MCPToolboxTests {
  @Test("mcp-server-time: its tools with their input schemas; a call answers with the time in the zone asked for")
  func referenceServer() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.time], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let names = toolbox.mcpTools.map(\.name)
    #expect(Set(names) == ["get_current_time", "convert_time"], "\(names)")
    let currentTime = try #require(toolbox.mcpTools.first { $0.name == "get_current_time" })
    #expect(currentTime.parameters.jsonSchema["properties"]?["timezone"]?["type"] == "string")
    let output = try await currentTime.call(arguments: GeneratedContent(["timezone": "Asia/Tokyo"]),
                                            context: ToolContext(callID: "1", transcript: Transcript(entries: [])))
    #expect(output.description.contains("Asia/Tokyo") && output.description.contains("datetime"), "\(output)")
  }

  @Test("results as the session knows them: text, structured content, an image and audio as artifacts, resources, isError, progress")
  func results() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    func tool(_ name: String) throws -> MCPTool { try #require(toolbox.mcpTools.first { $0.name == name }, "\(name)") }
    let context = ToolContext(callID: "1", transcript: Transcript(entries: []))

    #expect(try await tool("add").call(arguments: GeneratedContent(["a": 2, "b": 40]), context: context).description == "42")
    let weather = try await tool("weather").call(arguments: GeneratedContent(["city": "Oslo"]), context: context)
    guard case .structure(let structure) = weather.content else { Issue.record("expected structured content"); return }
    #expect(structure.jsonValue["city"] == "Oslo" && structure.jsonValue["celsius"] == 21.5)

    let drawn = try await tool("draw").call(arguments: GeneratedContent([:]), context: context)
    let image = try #require(drawn.artifacts.first)
    #expect(image.mimeType == "image/png" && image.name == "draw-1.png")
    #expect(try Attachment(data: try #require(image.data)).mimeType == "image/png")

    let media = try await tool("media").call(arguments: GeneratedContent([:]), context: context)
    #expect(media.artifacts.map(\.mimeType) == ["audio/wav"])
    #expect(media.description.contains("file:///notes.txt:\nthe notes"))
    #expect(media.description.contains("report: https://example.org/report.pdf"))

    await #expect {
      _ = try await tool("fail").call(arguments: GeneratedContent(["reason": "no"]), context: context)
    } throws: { error in
      guard case .toolFailed(let name, let message)? = error as? MCPError else { return false }
      return name == "fail" && message.contains("cannot do it: no")
    }

    let reports = Reports()
    let counting = ToolContext(callID: "2", transcript: Transcript(entries: []),
                               progressHandler: { fraction, message in reports.add(fraction, message) })
    #expect(try await tool("count").call(arguments: GeneratedContent([:]), context: counting).description == "counted to 3")
    let seen = reports.all
    #expect(seen.map(\.fraction).last == 1 && seen.contains { $0.message == "step 2" }, "\(seen)")
  }

  @Test("two servers with a tool of the same name: each prefixed with its server's name; both answer")
  func clashingNames() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.time, MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let names = Set(toolbox.mcpTools.map(\.name))
    #expect(names.isSuperset(of: ["time_get_current_time", "own_get_current_time", "convert_time", "add"]), "\(names)")
    #expect(!names.contains("get_current_time"))
    let own = try #require(toolbox.mcpTools.first { $0.name == "own_get_current_time" })
    let output = try await own.call(arguments: GeneratedContent(["timezone": "UTC"]),
                                    context: ToolContext(callID: "1", transcript: Transcript(entries: [])))
    #expect(output.description == "test server time in UTC")
  }

  @Test("a session calls an MCP tool like a built-in one: the model sees its output, the response carries its image")
  func inASession() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let model = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "c1", toolName: "add", arguments: GeneratedContent(["a": 1, "b": 2]))]),
      .toolCalls([Transcript.ToolCall(id: "c2", toolName: "draw", arguments: GeneratedContent([:]))]),
      .text("The sum is 3 and here is a pixel."),
    ])
    let session = GenerativeModelSession(model: model, tools: toolbox.tools)
    let response = try await session.respond(to: "Add 1 and 2, then draw.")
    #expect(response.content == "The sum is 3 and here is a pixel.")
    #expect(response.artifacts.map(\.mimeType) == ["image/png"])
    let outputs = session.transcript.compactMap { entry -> String? in
      if case .toolOutput = entry { return entry.text } else { return nil }
    }
    #expect(outputs.first == "3", "\(outputs)")
  }

  @Test("sampling/createMessage: answered by the app's model only for a server that is allowed; its prompt, instructions and token limit passed on")
  func sampling() async throws {
    let model = ScriptedLanguageModel(deltas: ["Paris"])
    var allowed = MCPTestServers.own
    allowed.allowsSampling = true
    let toolbox = try await MCPToolbox.connect([allowed], requestTimeout: MCPTestServers.requestTimeout, samplingModel: model, samplingTokenLimit: 20)
    defer { Task { await toolbox.close() } }
    let ask = try #require(toolbox.mcpTools.first { $0.name == "ask" })
    let context = ToolContext(callID: "1", transcript: Transcript(entries: []))
    let output = try await ask.call(arguments: GeneratedContent(["question": "The capital of France?"]), context: context)
    #expect(output.description == "the model said: Paris")
    let request = try #require(model.requests.first)
    #expect(request.transcript.map(\.text) == ["Be brief.", "The capital of France?"])
    #expect(request.options.maximumResponseTokens == 20 && request.options.temperature == 0)

    let refusing = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout, samplingModel: model)
    defer { Task { await refusing.close() } }
    let refused = try #require(refusing.mcpTools.first { $0.name == "ask" })
    await #expect {
      _ = try await refused.call(arguments: GeneratedContent(["question": "Hi"]), context: context)
    } throws: { error in
      guard case .toolFailed(_, let message)? = error as? MCPError else { return false }
      return message.contains("sampling refused")
    }
    #expect(model.requests.count == 1, "a server that is not allowed never reaches the model")
  }

  @Test("roots: the folders given are what roots/list answers; a request for the user's input is declined")
  func rootsAndElicitation() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout,
                                               roots: [URL(fileURLWithPath: "/srv/projects/app"), URL(fileURLWithPath: "/srv/notes")])
    defer { Task { await toolbox.close() } }
    let context = ToolContext(callID: "1", transcript: Transcript(entries: []))
    let folders = try #require(toolbox.mcpTools.first { $0.name == "folders" })
    let listed = try await folders.call(arguments: GeneratedContent([:]), context: context).description
    #expect(listed == "file:///srv/projects/app, file:///srv/notes", "\(listed)")
    let confirm = try #require(toolbox.mcpTools.first { $0.name == "confirm" })
    #expect(try await confirm.call(arguments: GeneratedContent([:]), context: context).description == "elicitation: decline")
  }

  @Test("elicitation with the app's handler: it gets the server's message and schema, and its fields reach the server")
  func elicitationHandler() async throws {
    let asked = Mutex<[MCPElicitationRequest]>([])
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout, elicitation: { request in
      asked.withLock { $0.append(request) }
      return .accept(["ok": .bool(true)])
    })
    defer { Task { await toolbox.close() } }
    let confirm = try #require(toolbox.mcpTools.first { $0.name == "confirm" })
    let answer = try await confirm.call(arguments: GeneratedContent([:]), context: ToolContext(callID: "1", transcript: Transcript(entries: [])))
    #expect(answer.description == "elicitation: accept", "\(answer)")
    let request = try #require(asked.withLock { $0.first })
    #expect(request.server == "own" && request.message == "Go ahead?" && request.url == nil)
    guard case .object(let schema)? = request.requestedSchema, case .object(let properties)? = schema["properties"] else {
      Issue.record("no form schema: \(String(describing: request.requestedSchema))"); return
    }
    #expect(properties.keys.contains("ok") && schema["required"] == .array([.string("ok")]), "\(schema)")
  }

  @Test("Streamable HTTP: the same server at a URL — tools, a result, an image, progress over server-sent events, the server's own stream")
  func streamableHTTP() async throws {
    let port = try Sockets.freeLoopbackPort()
    let process = try await MCPTestServers.startHTTPServer(
      [TestRepository.file("Tests/HybridAIMCPTests/Servers/test_server.py").path, "--http", String(port)], port: port)
    defer { Task { _ = await process.stop() } }
    let toolbox = try await MCPToolbox.connect([
      MCPServerConfiguration(name: "web", url: URL(string: "http://127.0.0.1:\(port)/mcp")!, headers: ["X-Test": "1"]),
    ], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    #expect(toolbox.mcpTools.map(\.name).contains("add"))
    func tool(_ name: String) throws -> MCPTool { try #require(toolbox.mcpTools.first { $0.name == name }, "\(name)") }
    let context = ToolContext(callID: "1", transcript: Transcript(entries: []))
    #expect(try await tool("add").call(arguments: GeneratedContent(["a": 20, "b": 22]), context: context).description == "42")
    #expect(try await tool("draw").call(arguments: GeneratedContent([:]), context: context).artifacts.first?.mimeType == "image/png")
    let reports = Reports()
    let counting = ToolContext(callID: "2", transcript: Transcript(entries: []),
                               progressHandler: { fraction, message in reports.add(fraction, message) })
    #expect(try await tool("count").call(arguments: GeneratedContent([:]), context: counting).description == "counted to 3")
    #expect(reports.all.map(\.fraction).last == 1, "\(reports.all)")

    // A notification that belongs to no call comes on the server's own stream (GET).
    #expect(try await tool("unlock").call(arguments: GeneratedContent([:]), context: context).description == "unlocked")
    let listed = ContinuousClock.now + .seconds(60)
    while !toolbox.mcpTools.contains(where: { $0.name == "secret" }), ContinuousClock.now < listed {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(toolbox.mcpTools.contains { $0.name == "secret" }, "tools/list_changed arrived: \(toolbox.mcpTools.map(\.name))")
  }

  @Test("a server's standard error goes to the log line by line, with the server's name")
  func standardErrorIsLogged() async throws {
    let records = RecordingLogHandler.Records()
    let logger = Logger(label: "tests.mcp") { RecordingLogHandler(label: $0, records: records) }
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout, logger: logger)
    await toolbox.close()
    let line = records.all.first { $0.message == "test server starting" }
    #expect(line?.level == .info && line?.metadata["server"] == "own", "\(records.all.map(\.message))")
  }

  @Test("a server that exits at once, a program that is not there, a server that never answers: typed errors naming the server")
  func failingServers() async throws {
    await #expect {
      _ = try await MCPToolbox.connect([MCPServerConfiguration(name: "dies", command: MCPTestServers.python,
                                                               arguments: ["-c", "import sys; print('broken', file=sys.stderr); sys.exit(3)"])], requestTimeout: MCPTestServers.requestTimeout)
    } throws: { error in
      guard case .serverExited(let server, let status, let standardError)? = error as? MCPError else { return false }
      return server == "dies" && status == 3 && standardError.contains("broken")
    }
    await #expect(throws: MCPError.launchFailed(server: "ghost", reason: "no-such-mcp-server is not a program on $PATH")) {
      _ = try await MCPToolbox.connect([MCPServerConfiguration(name: "ghost", command: "no-such-mcp-server")], requestTimeout: MCPTestServers.requestTimeout)
    }
    await #expect(throws: MCPError.timedOut(server: "mute", method: "initialize", seconds: 1)) {
      _ = try await MCPToolbox.connect([MCPServerConfiguration(name: "mute", command: "/bin/sleep", arguments: ["30"])],
                                       requestTimeout: .seconds(1))
    }
  }
}

extension MCPToolboxTests {
  @Test("a result as large as a photo (1 MiB) arrives whole; one over the message limit is a typed error at once, and the server is stopped")
  func largeResults() async throws {
    var own = MCPTestServers.own
    own.arguments += ["--photo", TestRepository.photo.path]
    let toolbox = try await MCPToolbox.connect([own], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let context = ToolContext(callID: "1", transcript: Transcript(entries: []))
    let photo = try await #require(toolbox.mcpTools.first { $0.name == "photo" }).call(arguments: GeneratedContent([:]), context: context)
    #expect(photo.artifacts.first?.data == (try Data(contentsOf: TestRepository.photo)), "the photo's bytes, whole")
    let huge = try #require(toolbox.mcpTools.first { $0.name == "huge" })
    await #expect(throws: MCPError.messageTooLarge(server: "own", limit: MCPServerConnection.maximumMessageBytes)) {
      _ = try await huge.call(arguments: GeneratedContent(["megabytes": 9]), context: context)
    }
  }
}

extension MCPToolboxTests {
  @Test("tools/list_changed: a server that adds a tool mid-session is listed again; the session offers the new tool from its next turn")
  func toolListChanged() async throws {
    let toolbox = try await MCPToolbox.connect([MCPTestServers.own], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let model = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "c1", toolName: "unlock", arguments: try GeneratedContent(json: "{}"))]),
      .text("Unlocked."),
      .toolCalls([Transcript.ToolCall(id: "c2", toolName: "secret", arguments: try GeneratedContent(json: "{}"))]),
      .text("Told."),
    ])
    let session = GenerativeModelSession(model: model, toolCatalogs: [toolbox])
    #expect(session.tools.contains { $0.name == "unlock" } && !session.tools.contains { $0.name == "secret" })
    _ = try await session.respond(to: "Unlock.")
    // The server's notification is read beside the call's answer; the new list follows it.
    let deadline = ContinuousClock.now + .seconds(60)
    while !toolbox.mcpTools.contains(where: { $0.name == "secret" }), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    let names = toolbox.mcpTools.map(\.name)
    #expect(names.contains("secret") && !names.contains("unlock"), "\(names)")
    let response = try await session.respond(to: "Tell me the secret.")
    #expect(response.content == "Told.")
    let output = response.transcriptEntries.first { if case .toolOutput = $0 { true } else { false } }
    #expect(output?.text == "the secret is 42", "\(String(describing: output))")
    #expect(model.requests.last?.tools.contains { $0.name == "secret" } == true)
  }
}

extension MCPToolboxTests {
  @Test("a server that crashes: the call fails, the next starts it again; one that fails to start is tried again only after a back-off")
  func restartWithBackOff() async throws {
    let folder = try TemporaryDirectory("mcp-restart")
    defer { folder.remove() }
    // Counts its starts in a file; from the third on it exits at once, as a broken install would.
    let launcher = folder.url.appending(path: "launch.sh")
    try Data("""
      echo start >> "$1"
      [ "$(wc -l < "$1")" -le 2 ] || { echo "refusing to start" >&2; exit 3; }
      exec "$2" "$3"
      """.utf8).write(to: launcher)
    let starts = folder.url.appending(path: "starts")
    let count = { (try? String(contentsOf: starts, encoding: .utf8))?.split(separator: "\n").count ?? 0 }
    let server = MCPServerConfiguration(name: "flaky", command: "/bin/sh", arguments: [
      launcher.path, starts.path, MCPTestServers.python, TestRepository.file("Tests/HybridAIMCPTests/Servers/test_server.py").path,
    ])
    let connection = try await MCPServerConnection.connect(server, requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await connection.close() } }
    func add() async throws -> String {
      let result = try await connection.callTool("add", arguments: ["a": 2, "b": 3])
      return result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined()
    }

    await #expect(throws: MCPError.self) { _ = try await connection.callTool("crash", arguments: [:]) }
    #expect(try await add() == "5", "started again on the next call")
    #expect(count() == 2)
    await #expect(throws: MCPError.self) { _ = try await connection.callTool("crash", arguments: [:]) }
    await #expect(throws: MCPError.self, "the third start fails") { _ = try await add() }
    #expect(count() == 3)
    await #expect {
      _ = try await add()
    } throws: { error in
      guard case .restartDelayed(let name, let seconds, _)? = error as? MCPError else { return false }
      return name == "flaky" && seconds == 1
    }
    #expect(count() == 3, "no start during the back-off")
    try await Task.sleep(for: .milliseconds(1100))
    await #expect(throws: MCPError.self) { _ = try await add() }
    #expect(count() == 4, "tried again after it")
    #expect(MCPServerConnection.restartDelay(afterFailedStarts: 3) == .seconds(4))
    #expect(MCPServerConnection.restartDelay(afterFailedStarts: 30) == MCPServerConnection.maximumRestartDelay)
  }
}

extension MCPToolboxTests {
  @Test("mcp-server-git: git_log lists the commits of a test repository")
  func gitServer() async throws {
    let repository = try TemporaryDirectory("mcp-git")
    defer { repository.remove() }
    for arguments in [["init", "-q"], ["-c", "user.name=Test", "-c", "user.email=test@example.org", "commit", "-q", "--allow-empty",
                                       "-m", "First light over the harbour"]] {
      let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/git"), ["-C", repository.url.path] + arguments,
                                               mergingStandardError: true)
      try #require(outcome.succeeded, "git \(arguments): \(outcome.output)")
    }
    let toolbox = try await MCPToolbox.connect([MCPTestServers.git(repository.url)], requestTimeout: MCPTestServers.requestTimeout)
    defer { Task { await toolbox.close() } }
    let log = try #require(toolbox.mcpTools.first { $0.name == "git_log" }, "\(toolbox.mcpTools.map(\.name))")
    #expect(log.parameters.jsonSchema["required"] == ["repo_path"])
    let output = try await log.call(arguments: GeneratedContent(properties: ["repo_path": repository.url.path]),
                                    context: ToolContext(callID: "1", transcript: Transcript(entries: [])))
    #expect(output.description.contains("First light over the harbour"), "\(output)")
  }
}

/// Progress reports collected from another thread.
final class Reports: Sendable {
  private let reports = Mutex<[(fraction: Double, message: String)]>([])
  func add(_ fraction: Double, _ message: String) { reports.withLock { $0.append((fraction, message)) } }
  var all: [(fraction: Double, message: String)] { reports.withLock { $0 } }
}
