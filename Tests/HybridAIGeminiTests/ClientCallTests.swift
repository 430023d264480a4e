import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// The lower-level calls: countTokens, listModels, model(named:), and URL building.
@Suite("Client calls")
struct ClientCallTests {
  @Test("countTokens")
  func countTokens() async throws {
    let server = try await TestHTTPServer.start(replying: .json(#"{"totalTokens": 12, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}]}"#))
    defer { Task { await server.stop() } }
    let response = try await testModel(server).countTokens(CountTokensRequest(contents: [.user("Hello there")]))
    #expect(response.totalTokens == 12)
    let received = try #require(server.requests.first)
    #expect(received.uri == "/v1beta/models/test-model:countTokens")
    #expect(try jsonBody(received)["contents"] != nil)
  }

  @Test("listModels with paging")
  func listModels() async throws {
    let server = try await TestHTTPServer.start(replying: .json("""
      {"models": [{"name": "models/gemini-2.5-flash", "version": "001", "displayName": "Gemini 2.5 Flash",
                   "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                   "supportedGenerationMethods": ["generateContent", "countTokens"], "thinking": true}],
       "nextPageToken": "page 2"}
      """))
    defer { Task { await server.stop() } }
    let response = try await testModel(server).listModels(pageSize: 1, pageToken: "a b")
    #expect(response.models.map(\.shortName) == ["gemini-2.5-flash"])
    #expect(response.models.first?.inputTokenLimit == 1_048_576)
    #expect(response.models.first?.supportedGenerationMethods == ["generateContent", "countTokens"])
    #expect(response.nextPageToken == "page 2")
    let received = try #require(server.requests.first)
    #expect(received.method == "GET")
    #expect(received.uri == "/v1beta/models?pageSize=1&pageToken=a%20b")
  }

  @Test("model(named:), an unknown model, and names with a models/ prefix")
  func getModel() async throws {
    let server = try await TestHTTPServer.start { request, _ in
      request.path.hasSuffix("/missing")
        ? .json(#"{"error": {"code": 404, "message": "models/missing is not found", "status": "NOT_FOUND"}}"#, status: 404)
        : .json(#"{"name": "models/gemini-x", "displayName": "X", "outputTokenLimit": 8192}"#)
    }
    defer { Task { await server.stop() } }
    let model = testModel(server, name: "models/gemini-x")
    #expect(model.modelIdentifier == "gemini-x")
    let info = try await model.model()
    #expect(info.name == "models/gemini-x")
    #expect(info.outputTokenLimit == 8192)
    #expect(server.requests.first?.uri == "/v1beta/models/gemini-x")
    await #expect {
      _ = try await model.model(named: "missing")
    } throws: { error in
      if case .unknownModel = error as? GeminiError { true } else { false }
    }
  }

  @Test("a base URL with a path keeps it")
  func baseURLPath() async throws {
    let server = try await TestHTTPServer.start(replying: .json(#"{"totalTokens": 1}"#))
    defer { Task { await server.stop() } }
    let model = GeminiModel(name: "m", apiKey: nil, baseURL: server.baseURL.appendingPathComponent("gemini/"),
                            configuration: .init(retryPolicy: .none))
    _ = try await model.countTokens(CountTokensRequest(contents: [.user("x")]))
    #expect(server.requests.first?.uri == "/gemini/v1beta/models/m:countTokens")
  }

  @Test("a base URL that ends with the API version (as hybrid serve prints it) is not given the version twice")
  func baseURLWithVersion() async throws {
    let server = try await TestHTTPServer.start(replying: .json(#"{"totalTokens": 1}"#))
    defer { Task { await server.stop() } }
    for suffix in ["v1beta", "v1beta/"] {
      let model = GeminiModel(name: "m", apiKey: nil, baseURL: server.baseURL.appendingPathComponent(suffix),
                              configuration: .init(retryPolicy: .none))
      _ = try await model.countTokens(CountTokensRequest(contents: [.user("x")]))
    }
    #expect(server.requests.map(\.uri) == ["/v1beta/models/m:countTokens", "/v1beta/models/m:countTokens"])
  }

  @Test("a 404 for a path the server lacks (a wrong base URL) is not an unknown model", arguments: [
    #"{"error": {"code": 404, "message": "The requested URL /x/v1beta/models/m:generateContent was not found on this server.", "status": "NOT_FOUND"}}"#,
    "<html><body>404 Not Found</body></html>",
  ])
  func pathNotFound(_ body: String) {
    let error = GeminiError.http(status: 404, body: Data(body.utf8))
    guard case .httpError(let api) = error else { Issue.record("expected httpError, got \(error)"); return }
    #expect(api.httpStatus == 404)
    #expect(error.description.hasPrefix("no Gemini API at this URL"), "\(error.description)")
    let unknown = GeminiError.http(status: 404, body: Data(#"{"error": {"code": 404, "message": "models/x is not found", "status": "NOT_FOUND"}}"#.utf8))
    guard case .unknownModel = unknown else { Issue.record("expected unknownModel, got \(unknown)"); return }
  }

  @Test("GeminiModel is a cloud model, always available without I/O")
  func modelBasics() async {
    let model = GeminiModel(name: "gemini-3.1-flash-lite", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:9")!)
    #expect(model.source == .cloud)
    #expect(model.availability == .available)
    #expect(model.modelIdentifier == "gemini-3.1-flash-lite")
    #expect(await model.supports(request()) == .supported)
  }
}
