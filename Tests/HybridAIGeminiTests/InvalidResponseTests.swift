import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

@Suite("Invalid responses")
struct InvalidResponseTests {
  @Test("a unary body that is not JSON is a typed error")
  func unaryNotJSON() async throws {
    let server = try await TestHTTPServer.start(replying: .json("this is not json"))
    defer { Task { await server.stop() } }
    await #expect {
      _ = try await testModel(server).generateContent(GenerateContentRequest(contents: [.user("Hi")]))
    } throws: { error in
      guard case .invalidResponse(let detail) = error as? GeminiError else { return false }
      return detail.contains("this is not json")
    }
  }

  @Test("an event that is not JSON is a typed error, not offline")
  func streamNotJSON() async throws {
    let server = try await TestHTTPServer.start(replying: .sse(["{\"candidates\": [", "]}"]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    guard case .invalidResponse? = outcome.geminiError else {
      Issue.record("expected invalidResponse, got \(String(describing: outcome.error))")
      return
    }
    #expect(outcome.geminiError?.offlineReason == nil)
  }

  @Test("an error envelope inside the stream is the error it describes")
  func errorInStream() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "par"}]}}]}"#,
      #"{"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    #expect(outcome.text == "par")
    guard case .serverError(let api)? = outcome.geminiError else {
      Issue.record("expected serverError, got \(String(describing: outcome.error))")
      return
    }
    #expect(api.message == "boom")
  }

  @Test("an error body after some events, not sent as an event, is the error it describes (not a whole answer)",
        arguments: [
          #"{"error": {"code": 499, "message": "The operation was cancelled.", "status": "CANCELLED"}}"#,
          "[{\n  \"error\": {\n    \"code\": 499,\n    \"message\": \"The operation was cancelled.\",\n    \"status\": \"CANCELLED\"\n  }\n}\n]",
        ])
  func errorBodyAfterEvents(_ body: String) async throws {
    let stream = "data: " + #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Half an"}]}}]}"#
      + "\r\n\r\n" + body + "\n"
    let server = try await TestHTTPServer.start(replying: .rawSSE(Data(stream.utf8), chunkSize: 17))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    #expect(outcome.text == "Half an")
    #expect(outcome.raw == nil, "never a success")
    guard case .httpError(let api)? = outcome.geminiError else {
      Issue.record("expected httpError, got \(String(describing: outcome.error))")
      return
    }
    #expect(api.httpStatus == 499)
    #expect(api.message == "The operation was cancelled.")
  }

  @Test("text after some events that is not an event is an invalid response quoting it")
  func strayTextAfterEvents() async throws {
    let stream = "data: " + #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Half"}]}}]}"#
      + "\r\n\r\n<html>upstream timed out</html>\n"
    let server = try await TestHTTPServer.start(replying: .rawSSE(Data(stream.utf8), chunkSize: 64))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    guard case .invalidResponse(let detail)? = outcome.geminiError else {
      Issue.record("expected invalidResponse, got \(String(describing: outcome.error))")
      return
    }
    #expect(detail.contains("upstream timed out"))
    #expect(outcome.raw == nil)
  }

  @Test("an error page that is not a Google envelope keeps its text")
  func htmlErrorPage() async throws {
    let server = try await TestHTTPServer.start(replying: .body(
      status: 502, headers: [("content-type", "text/html")], body: Data("<html>Bad gateway</html>".utf8)))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server, retryPolicy: .none), request())
    guard case .serverError(let api)? = outcome.geminiError else {
      Issue.record("expected serverError, got \(String(describing: outcome.error))")
      return
    }
    #expect(api.httpStatus == 502)
    #expect(api.error == nil)
    #expect(api.message == "<html>Bad gateway</html>")
  }

  @Test("a server that ignores alt=sse and sends a JSON array still works")
  func jsonArrayStream() async throws {
    let server = try await TestHTTPServer.start(replying: .json("""
      [{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]},
       {"candidates": [{"content": {"role": "model", "parts": [{"text": "b"}]}, "finishReason": "STOP"}],
        "modelVersion": "array-model"}]
      """))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    #expect(outcome.error == nil)
    #expect(outcome.text == "ab")
    #expect(outcome.raw?.modelVersion == "array-model")
  }

  @Test("a request that cannot be encoded is a typed error and is not sent")
  func unencodableRequest() async throws {
    let server = try await TestHTTPServer.start(replying: .json("{}"))
    defer { Task { await server.stop() } }
    let unencodable = GenerateContentRequest(contents: [.user("Hi")],
                                             generationConfig: GenerationConfig(temperature: .nan))
    await #expect {
      _ = try await testModel(server).generateContent(unencodable)
    } throws: { error in
      if case .invalidRequest = error as? GeminiError { true } else { false }
    }
    #expect(server.requests.isEmpty)
  }
}
