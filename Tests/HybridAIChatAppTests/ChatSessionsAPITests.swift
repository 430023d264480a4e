import AsyncHTTPClient
import Foundation
import HybridAI
@testable import HybridAIChatApp
import HybridAIPersistence
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import Synchronization
import Testing

/// The web chat's sessions API over a real socket (or in memory) and a real SQLite file: sessions made, listed,
/// answered as typed server-sent events, renamed, reopened after a restart and deleted.
@Suite("Chat sessions API")
struct ChatSessionsAPITests {
  @Test("create, send, read back, rename, survive a restart, delete", arguments: ServerTransport.allCases)
  func lifecycle(over transport: ServerTransport) async throws {
    let device = ScriptedLanguageModel(identifier: "device", deltas: ["Hello", " there", "!"])
    let chat = try await ChatServer.start(models: ChatModels(onDevice: device), transport: transport)
    let config = try await TestHTTP.send(.GET, chat.url("config"))
    #expect(try config.json["modes"] as? [String] == ["on-device"])
    #expect(try config.json["defaultMode"] as? String == "on-device")

    let id = try await chat.createSession()
    let answer = try await chat.send(id, "Say hello.\nPlease.")
    #expect(answer.status == 200)
    #expect(answer.events.names == ["text", "text", "text", "usage", "done"], "\(answer.text)")
    #expect(answer.events.text == "Hello there!")
    let done = try #require(answer.events.first("done")?.data)
    #expect(done["modelVersion"] as? String == "device-1")
    #expect(done["source"] as? String == "on-device")
    #expect(done["mode"] as? String == "on-device")
    #expect(done["entryCount"] as? Int == 2)
    #expect((answer.events.first("usage")?.data["outputTokens"] as? Int ?? 0) > 0)

    let detail = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"))
    let entries = try #require(try detail.json["entries"] as? [[String: Any]])
    #expect(entries.map { $0["role"] as? String } == ["user", "model"])
    #expect(entries[0]["text"] as? String == "Say hello.\nPlease.")
    #expect(entries[1]["text"] as? String == "Hello there!" && entries[1]["modelVersion"] as? String == "device-1")
    #expect(entries[1]["source"] as? String == "on-device", "a reopened answer says where it was made, as `done` did")
    let usage = try #require(entries[1]["usage"] as? [String: Any])
    #expect(usage["outputTokens"] as? Int == answer.events.first("usage")?.data["outputTokens"] as? Int, "and its tokens: \(usage)")
    let session = try #require(try detail.json["session"] as? [String: Any])
    #expect(session["title"] as? String == "Say hello.", "the first line of the first message")

    let renamed = try await TestHTTP.send(.PATCH, chat.url("sessions/\(id)"), json: ["title": "Greetings"])
    #expect(renamed.status == 200)
    #expect(try renamed.json["title"] as? String == "Greetings")

    // A second message continues the same conversation.
    _ = try await chat.send(id, "Again.")
    #expect(device.requests.last?.transcript.count == 3)

    // After a restart the conversation is there, and the library's store (`hybrid sessions list`) sees it.
    await chat.stop(removingFiles: false)
    let again = try await ChatServer.start(models: ChatModels(onDevice: device), directory: chat.directory, transport: transport)
    let list = try await TestHTTP.send(.GET, again.url("sessions"))
    let listed = try #require(try list.json["sessions"] as? [[String: Any]])
    #expect(listed.map { $0["id"] as? String } == [id])
    #expect(listed.first?["title"] as? String == "Greetings" && listed.first?["entryCount"] as? Int == 4)
    #expect(try SessionStore(directory: again.directory.url).list().map(\.id) == [id])

    let deleted = try await TestHTTP.send(.DELETE, again.url("sessions/\(id)"))
    #expect(deleted.status == 204)
    let gone = try await TestHTTP.send(.GET, again.url("sessions/\(id)"))
    #expect(gone.status == 404 && gone.errorStatus == "NOT_FOUND")
    let sendToGone = try await again.send(id, "Hello?")
    #expect(sendToGone.status == 404, "a session deleted in another tab is a clear 404")
    await again.stop()
  }

  @Test("a tool's progress and files stream as typed events; files are served with their true type and safe headers", arguments: ServerTransport.allCases)
  func toolsAndFiles(over transport: ServerTransport) async throws {
    let painter = RecordingTool(name: "paint") { _, context in
      context.report(progress: 0.5, "painting")
      return ToolOutput("Painted.", artifacts: [Artifact(data: onePixelPNG, mimeType: "image/png", name: "<img src=x onerror=alert(1)>.png"),
                                                 Artifact(data: Data("<script>alert(1)</script>".utf8), mimeType: "text/html", name: "page.html")])
    }
    let cloud = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "call-1", toolName: "paint", arguments: try GeneratedContent(json: "{}"))]),
      .text("Here is your picture."),
    ])
    let chat = try await ChatServer.start(models: ChatModels(onDevice: nil, cloud: cloud), tools: [painter], transport: transport)
    defer { Task { await chat.stop() } }
    let id = try await chat.createSession(title: "Art")
    let answer = try await chat.send(id, "Paint me something.")
    #expect(answer.events.names == ["toolStarted", "toolProgress", "artifact", "artifact", "toolFinished", "text", "usage", "done"],
            "\(answer.text)")
    #expect(answer.events.first("toolStarted")?.data["toolName"] as? String == "paint")
    #expect(answer.events.first("toolProgress")?.data["fraction"] as? Double == 0.5)
    let file = try #require(answer.events.first("artifact")?.data["file"] as? [String: Any])
    #expect(file["mimeType"] as? String == "image/png" && file["size"] as? Int == onePixelPNG.count)
    #expect(file["name"] as? String == "<img src=x onerror=alert(1)>.png", "names are data, shown as text by the page")

    let image = try await TestHTTP.send(.GET, URL(string: chat.server.baseURL.absoluteString + (file["url"] as? String ?? ""))!)
    #expect(image.status == 200 && image.body == onePixelPNG)
    #expect(image.contentType == "image/png")
    #expect(image.header("x-content-type-options") == "nosniff")
    #expect(image.header("content-disposition")?.hasPrefix("inline;") == true)
    #expect(image.header("content-disposition")?.contains("onerror=alert(1)_.png") == true
            || image.header("content-disposition")?.contains("filename=\"<img") == true)

    let html = try #require(answer.events.filter { $0.name == "artifact" }.last?.data["file"] as? [String: Any])
    let page = try await TestHTTP.send(.GET, URL(string: chat.server.baseURL.absoluteString + (html["url"] as? String ?? ""))!)
    #expect(page.contentType == "text/html")
    #expect(page.header("content-disposition")?.hasPrefix("attachment;") == true, "HTML is downloaded, never shown")
    #expect(page.header("content-security-policy")?.contains("sandbox") == true)

    let detail = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"))
    let entries = try #require(try detail.json["entries"] as? [[String: Any]])
    #expect(entries.map { $0["role"] as? String } == ["user", "toolCalls", "tool", "model"])
    #expect((entries[2]["files"] as? [[String: Any]])?.count == 2)

    // Another session cannot read this one's files.
    let other = try await chat.createSession()
    let stolen = try await TestHTTP.send(.GET, chat.url("sessions/\(other)/files/\(file["id"] as? String ?? "")"))
    #expect(stolen.status == 404)
  }

  @Test("tool groups: the config lists them with their tools; a message offers the groups it names (all by default); an unknown one is 400",
        arguments: ServerTransport.allCases)
  func toolGroups(over transport: ServerTransport) async throws {
    let tool = { (name: String) in RecordingTool(name: name) { _, _ in ToolOutput(name) } }
    let device = ScriptedLanguageModel.rounds([.text("OK.")], cycling: true)
    let git = ChangingTools([tool("git_log")])
    let chat = try await ChatServer.start(models: ChatModels(onDevice: device), tools: [tool("always")], toolGroups: [
      ChatToolGroup(name: "time", tools: [tool("get_current_time"), tool("convert_time")]),
      ChatToolGroup(name: "git", catalog: git),
    ], transport: transport)
    defer { Task { await chat.stop() } }
    let config = try await TestHTTP.send(.GET, chat.url("config"))
    let groups = try #require(config.json["toolGroups"] as? [[String: Any]], "\(config.text)")
    #expect(groups.map { $0["name"] as? String } == ["time", "git"])
    #expect(groups.first?["tools"] as? [String] == ["get_current_time", "convert_time"])

    let id = try await chat.createSession()
    for (asked, offered) in [(nil, ["always", "get_current_time", "convert_time", "git_log"]), ([], ["always"]),
                             (["git"], ["always", "git_log"])] as [([String]?, [String])] {
      let answer = try await chat.send(id, "Hi", toolGroups: asked)
      #expect(answer.status == 200 && answer.events.text == "OK.", "\(answer.text)")
      #expect(device.requests.last?.tools.map(\.name) == offered, "toolGroups \(String(describing: asked))")
    }
    let unknown = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/messages"), json: ["text": "Hi", "toolGroups": ["fetch"]])
    #expect(unknown.status == 400 && unknown.errorMessage?.contains("no tool group fetch (they are git, time)") == true, "\(unknown.text)")
    #expect(device.requestCount == 3)

    // A group whose tools change (an MCP server's tools/list_changed) is read again for each message.
    git.set([tool("git_log"), tool("git_diff")])
    let changed = try await TestHTTP.send(.GET, chat.url("config"))
    #expect((try changed.json["toolGroups"] as? [[String: Any]])?.last?["tools"] as? [String] == ["git_log", "git_diff"])
    _ = try await chat.send(id, "Hi", toolGroups: ["git"])
    #expect(device.requests.last?.tools.map(\.name) == ["always", "git_log", "git_diff"])
  }

  @Test("with keys, the page's media and downloads use an HttpOnly key cookie, valid for files only: no key in a URL", arguments: ServerTransport.allCases)
  func keyCookie(over transport: ServerTransport) async throws {
    let painter = RecordingTool(name: "paint") { _, _ in
      ToolOutput("Painted.", artifacts: [Artifact(data: onePixelPNG, mimeType: "image/png", name: "dot.png")])
    }
    let cloud = ScriptedLanguageModel.rounds([
      .toolCalls([Transcript.ToolCall(id: "call-1", toolName: "paint", arguments: try GeneratedContent(json: "{}"))]),
      .text("Here."),
    ])
    let chat = try await ChatServer.start(models: ChatModels(onDevice: nil, cloud: cloud), tools: [painter], apiKeys: ["page-key"], transport: transport)
    defer { Task { await chat.stop() } }
    let key = ["x-goog-api-key": "page-key"]
    let created = try await TestHTTP.send(.POST, chat.url("sessions"), headers: key, json: [String: Any]())
    let id = try #require(try created.json["id"] as? String)
    let answer = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/messages"), headers: key, json: ["text": "Paint."])
    let file = try #require(SentEvent.parse(answer.text).first("artifact")?.data["file"] as? [String: Any], "\(answer.text)")
    let fileURL = URL(string: chat.server.baseURL.absoluteString + (file["url"] as? String ?? ""))!
    #expect(!(file["url"] as? String ?? "").contains("key="))

    let cookie = try await TestHTTP.send(.POST, chat.url("key-cookie"), headers: key)
    #expect(cookie.status == 204)
    let setCookie = cookie.header("set-cookie") ?? ""
    for part in ["hybridai_chat_key=page-key", "HttpOnly", "SameSite=Strict", "Path=/v1/chat/sessions/"] {
      #expect(setCookie.contains(part), "\(setCookie)")
    }
    let withCookie = try await TestHTTP.send(.GET, fileURL, headers: ["cookie": "theme=dark; hybridai_chat_key=page-key"])
    #expect(withCookie.status == 200 && withCookie.body == onePixelPNG)
    let wrongCookie = try await TestHTTP.send(.GET, fileURL, headers: ["cookie": "hybridai_chat_key=guess"])
    #expect(wrongCookie.status != 200)
    let notAFile = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"), headers: ["cookie": "hybridai_chat_key=page-key"])
    #expect(notAFile.status == 403, "the cookie opens files only")
    let noKey = try await TestHTTP.send(.POST, chat.url("key-cookie"))
    #expect(noKey.status == 403)
  }

  @Test("a file a tool made can be fetched while the answer is still being written (the page shows it at once)")
  func filesDuringTheAnswer() async throws {
    let painter = RecordingTool(name: "paint") { _ in
      ToolOutput("Painted.", artifacts: [Artifact(data: onePixelPNG, mimeType: "image/png", name: "dot.png")])
    }
    let call = Transcript.ToolCall(id: "call-1", toolName: "paint", arguments: try GeneratedContent(json: "{}"))
    let model = ScriptedLanguageModel(identifier: "slow-painter", source: .cloud, delay: .milliseconds(300)) { _, round in
      round == 0 ? [.toolCalls([call])] : [.textDelta("Here"), .textDelta(" it"), .textDelta(" is.")]
    }
    let chat = try await ChatServer.start(models: ChatModels(onDevice: nil, cloud: model), tools: [painter])
    defer { Task { await chat.stop() } }
    let id = try await chat.createSession()
    var request = HTTPClientRequest(url: chat.url("sessions/\(id)/messages").absoluteString)
    request.method = .POST
    request.headers.add(name: "content-type", value: "application/json")
    request.body = .bytes(ByteBuffer(string: #"{"text": "Paint."}"#))
    let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(60))
    var received = ""
    var fetchedBeforeDone: Int?
    for try await buffer in response.body {
      received += String(buffer: buffer)
      if fetchedBeforeDone == nil, let file = SentEvent.parse(received).first("artifact")?.data["file"] as? [String: Any],
         !received.contains("event: done") {
        let url = URL(string: chat.server.baseURL.absoluteString + (file["url"] as? String ?? ""))!
        let image = try await TestHTTP.send(.GET, url)
        fetchedBeforeDone = image.status
        #expect(image.body == onePixelPNG)
      }
    }
    #expect(fetchedBeforeDone == 200, "the file was served before the answer was saved: \(received)")
    #expect(received.contains("event: done"))
  }

  @Test("an attached photo: stored once, routed to the cloud with the reason, shown in the conversation", arguments: ServerTransport.allCases)
  func attachments(over transport: ServerTransport) async throws {
    let device = ScriptedLanguageModel(identifier: "device", deltas: ["device"])
    let cloud = ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["A red dot."],
                                      capabilities: ModelCapabilities(inputModalities: [.image]))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: device, cloud: cloud), maxUploadBytes: 4096, transport: transport)
    defer { Task { await chat.stop() } }
    let id = try await chat.createSession()
    let upload = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/files?name=..%2F..%2Fdot.png"), body: onePixelPNG)
    #expect(upload.status == 201, "\(upload.text)")
    let fileID = try #require(try upload.json["id"] as? String)
    #expect(try upload.json["name"] as? String == "dot.png", "no directories in a file name")
    #expect(try upload.json["mimeType"] as? String == "image/png")

    let answer = try await chat.send(id, "What is this?", files: [fileID], mode: "prefer-on-device")
    #expect(answer.events.names.first == "fallback", "\(answer.text)")
    #expect((answer.events.first("fallback")?.data["reason"] as? String)?.contains("image/png") == true)
    #expect(answer.events.text == "A red dot.")
    #expect(answer.events.first("done")?.data["source"] as? String == "cloud")
    #expect(try cloud.requests.first.map { request in try request.newAttachments.map { try request.contents(of: $0) } } == [onePixelPNG])
    #expect(device.requests.isEmpty)

    let detail = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"))
    let user = try #require((try detail.json["entries"] as? [[String: Any]])?.first)
    #expect((user["files"] as? [[String: Any]])?.first?["id"] as? String == fileID)

    // Bad files: each a clear error, nothing kept.
    let html = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/files?name=photo.png"), body: Data("<!DOCTYPE html><html></html>".utf8))
    #expect(html.status == 400 && html.errorMessage?.contains("text/html") == true, "\(html.text)")
    let empty = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/files?name=a.png"), body: Data())
    #expect(empty.status == 400 && empty.errorMessage?.contains("empty") == true, "\(empty.text)")
    let big = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/files?name=big.png"), body: onePixelPNG + Data(count: 8192))
    #expect(big.status == 413 && big.errorMessage?.contains("4096") == true, "\(big.text)")
    #expect(chat.sessions.store.artifactStore.allReferences().count == 1)
  }

  @Test("stop ends a running answer before its end and leaves the conversation as it was", arguments: ServerTransport.allCases)
  func stop(over transport: ServerTransport) async throws {
    // 40 s unless stopped.
    let slow = ScriptedLanguageModel(identifier: "slow", deltas: Array(repeating: "word ", count: 2000), delay: .milliseconds(20))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: slow), transport: transport)
    defer { Task { await chat.stop() } }
    let id = try await chat.createSession()
    let running = Task { try await chat.send(id, "Talk for a long time.") }
    // The session says when it is answering (a fixed sleep is not enough on a loaded machine).
    var answering = false
    for _ in 0..<600 where !answering {
      answering = try await TestHTTP.send(.GET, chat.url("sessions/\(id)")).json["isAnswering"] as? Bool == true
      if !answering { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(answering, "the first message is being answered")
    let busy = try await chat.send(id, "And another thing.")
    #expect(busy.status == 409, "one answer at a time per session")
    let stopped = try await TestHTTP.send(.POST, chat.url("sessions/\(id):stop"))
    #expect(try stopped.json["stopped"] as? Bool == true)
    let answer = try await running.value
    #expect(answer.events.last?.name == "error" && answer.events.last?.data["kind"] as? String == "cancelled", "\(answer.text)")
    #expect(answer.events.filter { $0.name == "text" }.count < 2000, "stopped before the answer's end")
    let detail = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"))
    #expect((try detail.json["entries"] as? [[String: Any]])?.isEmpty == true, "nothing half-written")
    let idle = try await TestHTTP.send(.POST, chat.url("sessions/\(id):stop"))
    #expect(try idle.json["stopped"] as? Bool == false)
  }

  @Test("a client that goes away mid-answer (a network cut, a closed tab) stops the generation; the session keeps what it had")
  func clientGoesAway() async throws {
    // 6 s a whole answer: long enough that a loaded machine noticing the cut late does not let
    // the cut answer finish and be saved.
    let slow = ScriptedLanguageModel(identifier: "slow", deltas: Array(repeating: "word ", count: 300), delay: .milliseconds(20))
    let chat = try await ChatServer.start(models: ChatModels(onDevice: slow))
    defer { Task { await chat.stop() } }
    let id = try await chat.createSession()
    _ = try await chat.send(id, "First.")   // the saved state to keep
    let firstChunk = AsyncStream.makeStream(of: Void.self)
    let reader = Task {
      var request = HTTPClientRequest(url: chat.url("sessions/\(id)/messages").absoluteString)
      request.method = .POST
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(string: #"{"text": "Second."}"#))
      let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(60))
      for try await _ in response.body {
        firstChunk.continuation.yield()
      }
    }
    var chunks = firstChunk.stream.makeAsyncIterator()
    _ = await chunks.next()
    reader.cancel()   // the connection goes away mid-answer
    _ = await reader.result
    // The server notices, stops generating and frees the session for the next message.
    var answer = try await chat.send(id, "Third.")
    let deadline = ContinuousClock.now + .seconds(60)
    while answer.status == 409, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(100))
      answer = try await chat.send(id, "Third.")
    }
    #expect(answer.status == 200 && answer.events.names.last == "done", "\(answer.text)")
    let detail = try await TestHTTP.send(.GET, chat.url("sessions/\(id)"))
    let texts = (try detail.json["entries"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
    #expect(texts.filter { ["First.", "Second.", "Third."].contains($0) } == ["First.", "Third."],
            "the cut answer was not saved; the others were: \(texts)")
  }

  @Test("bad requests: each a clear status and message, nothing reaches the model", arguments: ServerTransport.allCases)
  func badRequests(over transport: ServerTransport) async throws {
    let device = ScriptedLanguageModel(identifier: "device")
    let chat = try await ChatServer.start(models: ChatModels(onDevice: device), apiKeys: ["secret"], transport: transport)
    defer { Task { await chat.stop() } }
    let unauthorised = try await TestHTTP.send(.GET, chat.url("sessions"))
    #expect(unauthorised.status == 403)
    let key = ["x-goog-api-key": "secret"]
    let created = try await TestHTTP.send(.POST, chat.url("sessions"), headers: key, json: [String: Any]())
    let id = try #require(try created.json["id"] as? String)

    func post(_ path: String, _ body: [String: Any], headers extra: [String: String] = [:]) async throws -> TestHTTP.Reply {
      try await TestHTTP.send(.POST, chat.url(path), headers: key.merging(extra) { $1 }, json: body)
    }
    let empty = try await post("sessions/\(id)/messages", ["text": "  \n "])
    #expect(empty.status == 400 && empty.errorMessage?.contains("empty") == true)
    let unknownMode = try await post("sessions/\(id)/messages", ["text": "Hi", "mode": "telepathy"])
    #expect(unknownMode.status == 400 && unknownMode.errorMessage?.contains("prefer-on-device") == true)
    let noCloud = try await post("sessions/\(id)/messages", ["text": "Hi", "mode": "cloud"])
    #expect(noCloud.status == 400 && noCloud.errorMessage?.contains("available: on-device") == true, "\(noCloud.text)")
    let unknownFile = try await post("sessions/\(id)/messages", ["text": "Hi", "files": ["no-such-file"]])
    #expect(unknownFile.status == 404)
    for bad in ["no-such-session", "..%2F..%2Fetc", "x%00y"] {
      let reply = try await TestHTTP.send(.GET, chat.url("sessions/\(bad)"), headers: key)
      #expect(reply.status == 404, "\(bad): \(reply.status)")
    }
    let crossSite = try await post("sessions/\(id)/messages", ["text": "Hi"], headers: ["origin": "http://evil.example"])
    #expect(crossSite.status == 403)
    let fetchSite = try await TestHTTP.send(.DELETE, chat.url("sessions/\(id)"), headers: key.merging(["sec-fetch-site": "cross-site"]) { $1 })
    #expect(fetchSite.status == 403)
    let notJSON = try await TestHTTP.send(.POST, chat.url("sessions/\(id)/messages"), headers: key, body: Data("{".utf8))
    #expect(notJSON.status == 400)
    #expect(device.requestCount == 0)

    let sameSite = try await post("sessions/\(id)/messages", ["text": "Hi"],
                                  headers: ["origin": chat.server.origin])
    #expect(sameSite.status == 200, "the page's own requests pass")
  }
}

/// Tools whose list a test changes.
final class ChangingTools: ToolCatalog {
  private let current: Mutex<[any Tool]>
  init(_ tools: [any Tool]) { current = Mutex(tools) }
  var tools: [any Tool] { current.withLock { $0 } }
  func set(_ tools: [any Tool]) { current.withLock { $0 = tools } }
}
