import Foundation
import HybridAI
@testable import HybridAIChatApp
import HybridAIPersistence
import HybridAIServing
import HybridAIServerTestSupport
import HybridAITestSupport

/// A `hybrid serve` with only the web chat, over a real socket or in memory (see ``ServerTransport``), on a
/// fresh session directory.
struct ChatServer {
  let server: RunningServer
  let sessions: ChatSessions
  let directory: TemporaryDirectory

  static func start(models: ChatModels, tools: [any Tool] = [], toolGroups: [ChatToolGroup] = [], apiKeys: Set<String> = [],
                    maxUploadBytes: Int = 20 << 20, directory: TemporaryDirectory? = nil,
                    transport: ServerTransport = .socket) async throws -> ChatServer {
    let directory = try directory ?? TemporaryDirectory("chat")
    let store = try SessionStore(directory: directory.url)
    let sessions = ChatSessions(store: store, models: models, tools: tools, toolGroups: toolGroups,
                                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 32))
    let server = try await RunningServer.start([ChatApp(sessions: sessions, maxUploadBytes: maxUploadBytes)],
                                               configuration: ServerConfiguration(apiKeys: apiKeys), transport: transport)
    return ChatServer(server: server, sessions: sessions, directory: directory)
  }

  func stop(removingFiles: Bool = true) async {
    await server.stop()
    if removingFiles { directory.remove() }
  }

  func url(_ path: String) -> URL { URL(string: server.baseURL.absoluteString + "/v1/chat/" + path)! }

  /// Creates a session and returns its id.
  func createSession(title: String? = nil) async throws -> String {
    let reply = try await TestHTTP.send(.POST, url("sessions"), json: title.map { ["title": $0] } ?? [String: Any]())
    guard reply.status == 201, let id = try reply.json["id"] as? String else { throw ChatTestFailure("create: \(reply.status) \(reply.text)") }
    return id
  }

  /// Sends a message and returns the answer's events.
  func send(_ session: String, _ text: String, files: [String] = [], mode: String? = nil,
            toolGroups: [String]? = nil) async throws -> (status: Int, events: [SentEvent], text: String) {
    var body: [String: Any] = ["text": text, "files": files]
    if let mode { body["mode"] = mode }
    if let toolGroups { body["toolGroups"] = toolGroups }
    let reply = try await TestHTTP.send(.POST, url("sessions/\(session)/messages"), json: body)
    return (reply.status, SentEvent.parse(reply.text), reply.text)
  }
}

/// One server-sent event of the chat: its name and JSON data.
struct SentEvent: @unchecked Sendable {
  var name: String
  var data: [String: Any]

  /// The events of a `text/event-stream` body (`event:` and one `data:` line each).
  static func parse(_ text: String) -> [SentEvent] {
    text.components(separatedBy: "\n\n").compactMap { block in
      var name = "message"
      var data = ""
      for line in block.split(separator: "\n") {
        if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
        if line.hasPrefix("data: ") { data += line.dropFirst(6) }
      }
      guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return nil }
      return SentEvent(name: name, data: object)
    }
  }
}

extension [SentEvent] {
  var names: [String] { map(\.name) }
  /// The text deltas joined.
  var text: String { filter { $0.name == "text" }.compactMap { $0.data["delta"] as? String }.joined() }
  func first(_ name: String) -> SentEvent? { first { $0.name == name } }
}

let onePixelPNG = TestMedia.onePixelPNG

/// A failed step of a chat test.
struct ChatTestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
