import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

@Suite("Retries")
struct RetryTests {
  private static let ok = TestHTTPServer.Reply.json(
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}"#)
  private static let okStream = TestHTTPServer.Reply.sse([
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}"#,
  ])

  private static func status(_ code: Int, _ status: String, headers: [(String, String)] = []) -> TestHTTPServer.Reply {
    .json(#"{"error": {"code": \#(code), "message": "try later", "status": "\#(status)"}}"#, status: code, headers: headers)
  }

  private static let unary = GenerateContentRequest(contents: [.user("Hi")])

  @Test("429 with Retry-After, then success: the server's delay is used, not the (ten-minute) backoff",
        .timeLimit(.minutes(5)))
  func retryAfterThenSuccess() async throws {
    let server = try await TestHTTPServer.start { _, index in
      index == 0 ? Self.status(429, "RESOURCE_EXHAUSTED", headers: [("Retry-After", "0")]) : Self.ok
    }
    defer { Task { await server.stop() } }
    let slowBackoff = GeminiModel.RetryPolicy(maxAttempts: 3, initialBackoff: .seconds(600), maxBackoff: .seconds(600))
    let response = try await testModel(server, retryPolicy: slowBackoff).generateContent(Self.unary)
    #expect(response.text == "ok")
    #expect(server.requests.count == 2)
  }

  @Test("a RetryInfo detail on 429 is honoured too", .timeLimit(.minutes(5)))
  func retryInfo() async throws {
    let server = try await TestHTTPServer.start { _, index in
      index == 0
        ? .json(#"{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.001s"}]}}"#,
                status: 429)
        : Self.ok
    }
    defer { Task { await server.stop() } }
    let slowBackoff = GeminiModel.RetryPolicy(maxAttempts: 2, initialBackoff: .seconds(600), maxBackoff: .seconds(600))
    #expect(try await testModel(server, retryPolicy: slowBackoff).generateContent(Self.unary).text == "ok")
    #expect(server.requests.count == 2)
  }

  @Test("503 on every attempt: a typed server error after maxAttempts requests")
  func serverErrorAfterMaxAttempts() async throws {
    let server = try await TestHTTPServer.start(replying: Self.status(503, "UNAVAILABLE"))
    defer { Task { await server.stop() } }
    let policy = GeminiModel.RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(4))
    await #expect {
      _ = try await testModel(server, retryPolicy: policy).generateContent(Self.unary)
    } throws: { error in
      guard case .serverError(let api) = error as? GeminiError else { return false }
      return api.httpStatus == 503 && api.status == "UNAVAILABLE"
    }
    #expect(server.requests.count == 4)
  }

  @Test("500 and 504 are retried, and streams are retried before their first byte")
  func streamRetried() async throws {
    let server = try await TestHTTPServer.start { _, index in
      switch index {
      case 0: Self.status(500, "INTERNAL")
      case 1: Self.status(504, "DEADLINE_EXCEEDED")
      default: Self.okStream
      }
    }
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    #expect(outcome.error == nil)
    #expect(outcome.text == "ok")
    #expect(server.requests.count == 3)
  }

  @Test("other 4xx are not retried", arguments: [(400, "INVALID_ARGUMENT"), (403, "PERMISSION_DENIED"),
                                                  (404, "NOT_FOUND")])
  func noRetry(_ code: Int, _ status: String) async throws {
    let server = try await TestHTTPServer.start(replying: Self.status(code, status))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    let error = try #require(outcome.geminiError)
    #expect(error.apiError?.httpStatus == code)
    #expect(error.offlineReason == nil)
    #expect(server.requests.count == 1)
  }

  @Test("a server asking to wait longer than maxRetryAfter is not waited for")
  func retryAfterTooLong() async throws {
    let server = try await TestHTTPServer.start(replying: Self.status(429, "RESOURCE_EXHAUSTED",
                                                                      headers: [("Retry-After", "3600")]))
    defer { Task { await server.stop() } }
    await #expect {
      _ = try await testModel(server).generateContent(Self.unary)
    } throws: { error in
      guard case .quotaExceeded(_, let retryAfter) = error as? GeminiError else { return false }
      return retryAfter == .seconds(3600)
    }
    #expect(server.requests.count == 1)
  }

  @Test("backoff doubles up to its cap; a server's delay wins; no delay after the last attempt")
  func backoffSchedule() {
    let policy = GeminiModel.RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(300),
                                         maxRetryAfter: .seconds(2))
    #expect(policy.delay(afterAttempt: 1, retryAfter: nil) == .milliseconds(100))
    #expect(policy.delay(afterAttempt: 2, retryAfter: nil) == .milliseconds(200))
    #expect(policy.delay(afterAttempt: 3, retryAfter: nil) == .milliseconds(300))
    #expect(policy.delay(afterAttempt: 4, retryAfter: nil) == .milliseconds(300))
    #expect(policy.delay(afterAttempt: 5, retryAfter: nil) == nil)
    #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(1)) == .seconds(1))
    #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(3)) == nil)
    #expect(GeminiModel.RetryPolicy.none.delay(afterAttempt: 1, retryAfter: nil) == nil)
    #expect(GeminiError.parseRetryAfter(" 2 ") == .seconds(2))
    #expect(GeminiError.parseRetryAfter("0.25") == .milliseconds(250))
    #expect(GeminiError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
  }
}
