import Foundation
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Testing

/// CORS, in memory and on a real socket: a browser page on an allowed origin may call the APIs (the preflight
/// answered without a key, answers and errors carrying the allow header); other origins, and a
/// server that allows none, get no CORS headers.
@Suite("cross-origin requests (CORS)")
struct CrossOriginTests {
  static let page = "https://app.example.com"

  static func server(allowing origins: [String], transport: ServerTransport) async throws -> RunningServer {
    var configuration = ServerConfiguration(apiKeys: ["secret"])
    configuration.allowedOrigins = origins
    let served = ServedModel(name: "m", model: ScriptedLanguageModel { _, _ in [.textDelta("Hi")] },
                             inputTokenLimit: 100, outputTokenLimit: 100) { _ in 1 }
    return try await RunningServer.start([GeminiCompatibleAPI(models: [served]), OpenAICompatibleAPI(models: [served])],
                                         configuration: configuration, transport: transport)
  }

  @Test("an allowed origin: the preflight is answered without a key; answers and errors carry the origin", arguments: ServerTransport.allCases)
  func allowedOrigin(over transport: ServerTransport) async throws {
    let server = try await Self.server(allowing: [Self.page], transport: transport)
    defer { Task { await server.stop() } }
    let chat = server.baseURL.appendingPathComponent("v1/chat/completions")
    let preflight = try await TestHTTP.send(.OPTIONS, chat, headers: [
      "origin": Self.page, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type",
    ])
    #expect(preflight.status == 204, "\(preflight.text)")
    #expect(preflight.header("access-control-allow-origin") == Self.page)
    #expect(preflight.header("access-control-allow-headers") == "authorization, content-type")
    #expect(preflight.header("access-control-allow-methods")?.contains("POST") == true)

    let answer = try await TestHTTP.send(.POST, chat, headers: ["origin": Self.page, "authorization": "Bearer secret"],
                                         json: ["model": "m", "messages": [["role": "user", "content": "Hi"]]])
    #expect(answer.status == 200 && answer.header("access-control-allow-origin") == Self.page, "\(answer.text)")
    let refused = try await TestHTTP.send(.POST, chat, headers: ["origin": Self.page, "authorization": "Bearer wrong"],
                                          json: ["model": "m", "messages": [["role": "user", "content": "Hi"]]])
    #expect(refused.status == 401 && refused.header("access-control-allow-origin") == Self.page,
            "the page can read why it was refused")

    let stranger = try await TestHTTP.send(.GET, server.baseURL.appendingPathComponent("v1beta/models"),
                                           headers: ["origin": "https://evil.example", "x-goog-api-key": "secret"])
    #expect(stranger.status == 200 && stranger.header("access-control-allow-origin") == nil)
  }

  @Test("* allows any origin; without --cors-origin no CORS header is sent and a preflight is not answered", arguments: ServerTransport.allCases)
  func anyOrNone(over transport: ServerTransport) async throws {
    let open = try await Self.server(allowing: ["*"], transport: transport)
    defer { Task { await open.stop() } }
    let any = try await TestHTTP.send(.GET, open.baseURL.appendingPathComponent("v1beta/models"),
                                      headers: ["origin": "https://anywhere.example", "x-goog-api-key": "secret"])
    #expect(any.status == 200 && any.header("access-control-allow-origin") == "*")

    let closed = try await Self.server(allowing: [], transport: transport)
    defer { Task { await closed.stop() } }
    let plain = try await TestHTTP.send(.GET, closed.baseURL.appendingPathComponent("v1beta/models"),
                                        headers: ["origin": Self.page, "x-goog-api-key": "secret"])
    #expect(plain.status == 200 && plain.header("access-control-allow-origin") == nil)
    let preflight = try await TestHTTP.send(.OPTIONS, closed.baseURL.appendingPathComponent("v1/chat/completions"),
                                            headers: ["origin": Self.page, "access-control-request-method": "POST"])
    #expect(preflight.status != 204 && preflight.header("access-control-allow-origin") == nil)
  }
}
