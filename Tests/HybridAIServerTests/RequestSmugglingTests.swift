import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Request smuggling: a request whose body length two HTTP parsers could read differently (both
/// `Content-Length` and `Transfer-Encoding`, two lengths, an obfuscated `Transfer-Encoding`),
/// sent to `hybrid serve` directly and through the example nginx config. `hybrid serve` refuses
/// each with a 400 and closes the connection; behind nginx, every request the server answers is
/// one nginx read and logged — a request hidden in another's body never reaches the model.
@Suite("Server: request smuggling, directly and through nginx")
struct RequestSmugglingTests {
  /// A `generateContent` request: the one an attacker would hide, since it reaches the model.
  static var hidden: String {
    let body = #"{"contents": [{"role": "user", "parts": [{"text": "smuggled"}]}]}"#
    return "POST /v1beta/models/\(ScriptedServer.modelName):generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
  }

  /// Requests whose length is ambiguous, each with ``hidden`` where one reading of it ends the body.
  static var ambiguous: [(name: String, request: String)] {
    let head = "POST /v1beta/models/\(ScriptedServer.modelName):countTokens HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    let chunk = String(hidden.utf8.count, radix: 16)
    return [
      ("CL.TE", head + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden),
      ("TE.CL", head + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n\(chunk)\r\n\(hidden)\r\n0\r\n\r\n"),
      ("two lengths", head + "Content-Length: 0\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n" + hidden),
      ("obfuscated TE", head + "Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + hidden),
      ("TE with a space before the colon", head + "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + hidden),
    ]
  }

  static func start() async throws -> ScriptedServer {
    try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("ok")] })
  }

  @Test("hybrid serve refuses each ambiguous request with a 400, closes the connection, and never runs the hidden one",
        arguments: Self.ambiguous.map(\.name))
  func direct(_ name: String) async throws {
    let request = try #require(Self.ambiguous.first { $0.name == name }).request
    let server = try await Self.start()
    defer { Task { await server.stop() } }
    let connection = try RawHTTPConnection(port: server.port)
    try connection.send(Data(request.utf8))
    let response = await connection.readResponse(timeout: .seconds(60))
    #expect(response.status == 400, "\(name): \(response.text)")
    let rest = await connection.readResponse(timeout: .seconds(2))
    #expect(rest.status == 0, "\(name): nothing more is answered on that connection: \(rest.text)")
    #expect(server.model.requestCount == 0, "\(name): the hidden request reached the model")
  }

  @Test("through nginx: whatever nginx makes of each, the server answers only requests nginx read and logged")
  func throughNginx() async throws {
    let server = try await Self.start()
    defer { Task { await server.stop() } }
    let nginx = try await TestNginx.start(upstreamPorts: [server.port])
    defer { Task { await nginx.stop() } }
    for (name, request) in Self.ambiguous {
      let connection = try RawHTTPConnection(port: nginx.port)
      try connection.send(Data(request.utf8))
      let response = await connection.readResponse(timeout: .seconds(60))
      #expect(response.status != 0, "\(name): nginx answers")
      _ = await connection.readResponse(timeout: .seconds(2))   // a pipelined request's answer, if nginx read one
      // Every generate request the model answered so far is one nginx logged as such.
      let answered = server.model.requestCount
      let logged = nginx.accessLog.split(separator: "\n").filter { $0.contains(":generateContent") }.count
      #expect(answered <= logged, "after \(name): the model answered \(answered) generate requests, nginx logged \(logged):\n\(nginx.accessLog)")
    }
  }
}
