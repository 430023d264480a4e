import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import HybridAIServing
import Testing

/// What a connection may cost the server: a body declared larger than the limit is refused before
/// it is read and the connection closed, so a client cannot make the server drain gigabytes; a
/// connection that sends nothing — a request head left half-written, or an idle keep-alive — is
/// closed after the idle timeout.
@Suite("Server: oversized bodies and idle connections are closed")
struct ConnectionLimitsTests {
  static func start(idleTimeout: Duration? = .seconds(75), requestHeadTimeout: Duration? = .seconds(60)) async throws -> ScriptedServer {
    var configuration = ServerConfiguration()
    configuration.idleTimeout = idleTimeout
    configuration.requestHeadTimeout = requestHeadTimeout
    return try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("ok")] },
                                          configuration: configuration)
  }

  @Test("a 10 GiB Content-Length is answered 413 with Connection: close after 1 MiB of it, and the connection closes",
        arguments: ["/v1beta/models/\(ScriptedServer.modelName):generateContent", "/v1/chat/completions"])
  func declaredTooLarge(_ path: String) async throws {
    let server = try await Self.start()
    defer { Task { await server.stop() } }
    let connection = try RawHTTPConnection(port: server.port)
    try connection.sendHead("POST", path, headers: ["Content-Type": "application/json",
                                                    "Content-Length": String(10 << 30)])
    try? connection.send(Data(repeating: 0x20, count: 1 << 20))
    let response = await connection.readResponse(timeout: .seconds(60))
    #expect(response.status == 413, "\(response.text)")
    #expect(response.text.lowercased().contains("connection: close"), "\(response.text)")
    #expect(await connection.closesWithin(.seconds(30)), "the server closes the connection instead of reading 10 GiB")
    #expect(server.model.requestCount == 0)
  }

  @Test("a request refused while its body arrives closes its connection; one refused after its whole body keeps it")
  func refusedWithBodyComplete() async throws {
    let server = try await Self.start()
    defer { Task { await server.stop() } }
    let connection = try RawHTTPConnection(port: server.port)
    let body = "{not json"
    try connection.sendHead("POST", "/v1beta/models/\(ScriptedServer.modelName):generateContent",
                            headers: ["Content-Type": "application/json", "Content-Length": String(body.utf8.count)])
    try connection.send(Data(body.utf8))
    let refused = await connection.readResponse(timeout: .seconds(60))
    #expect(refused.status == 400, "\(refused.text)")
    #expect(!refused.text.lowercased().contains("connection: close"), "\(refused.text)")
    try connection.sendHead("GET", "/v1beta/models", headers: [:])
    let next = await connection.readResponse(timeout: .seconds(60))
    #expect(next.status == 200, "the connection still answers: \(next.text)")
  }

  @Test("a request head left half-written, and an idle keep-alive connection, are closed after the idle timeout")
  func idleConnections() async throws {
    // 3 s, not less: the timer runs from the connection's start, and a loaded machine has taken
    // over a second to read a head sent at once.
    let server = try await Self.start(idleTimeout: .seconds(3))
    defer { Task { await server.stop() } }
    let slow = try RawHTTPConnection(port: server.port)
    try slow.send(Data("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty".utf8))
    #expect(await slow.closesWithin(.seconds(30)), "a half-written head holds its connection open")

    let idle = try RawHTTPConnection(port: server.port)
    try idle.sendHead("GET", "/v1beta/models", headers: [:])
    #expect(await idle.readResponse(timeout: .seconds(60)).status == 200)
    #expect(await idle.closesWithin(.seconds(30)), "an idle keep-alive connection stays open")
  }

  @Test("request headers sent a byte at a time are cut at the head timeout; a head on time, then a slow body, are not")
  func tricklingHead() async throws {
    let server = try await Self.start(requestHeadTimeout: .seconds(2))
    defer { Task { await server.stop() } }
    let connection = try RawHTTPConnection(port: server.port)
    let head = Data("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 200))".utf8)
    var closed = false
    for byte in head {
      guard (try? connection.send(Data([byte]))) != nil else { closed = true; break }
      if await connection.closesWithin(.milliseconds(100)) { closed = true; break }
    }
    #expect(closed, "a head trickling in for 20 s keeps its connection")

    // A whole head, then a body a piece every 500 ms for 3 s: the body is not the head's to time.
    let body = #"{"model": "\#(ScriptedServer.modelName)", "messages": [{"role": "user", "content": "hi"}]}"#
    let slowBody = try RawHTTPConnection(port: server.port)
    try slowBody.sendHead("POST", "/v1/chat/completions", headers: ["Content-Type": "application/json",
                                                                  "Content-Length": String(body.utf8.count)])
    let pieces = Array(body.utf8).chunked(into: (body.utf8.count + 5) / 6)
    for piece in pieces {
      try slowBody.send(Data(piece))
      try await Task.sleep(for: .milliseconds(500))
    }
    let answered = await slowBody.readResponse(timeout: .seconds(60))
    #expect(answered.status == 200, "\(answered.text)")
    // Keep-alive: the next head, after a pause longer than the head timeout, is answered too.
    try await Task.sleep(for: .seconds(3))
    try slowBody.sendHead("GET", "/v1beta/models", headers: [:])
    #expect(await slowBody.readResponse(timeout: .seconds(60)).status == 200)
  }

  @Test("with no idle timeout, a quiet connection stays open")
  func noIdleTimeout() async throws {
    let server = try await Self.start(idleTimeout: nil)
    defer { Task { await server.stop() } }
    let idle = try RawHTTPConnection(port: server.port)
    try idle.sendHead("GET", "/v1beta/models", headers: [:])
    #expect(await idle.readResponse(timeout: .seconds(60)).status == 200)
    #expect(!(await idle.closesWithin(.seconds(2))))
  }
}

private extension Array {
  func chunked(into size: Int) -> [[Element]] {
    stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
  }
}
