import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServer
@testable import HybridAIServing
import HybridAITestSupport
import Hummingbird
import Synchronization
import Testing

/// Per-key request limits and constant-time key checks: a key over its limit gets Google's
/// `429 RESOURCE_EXHAUSTED` with `Retry-After` and `RetryInfo` (which `GeminiModel` reads), other
/// keys are unaffected.
@Suite("API keys: rate limits and constant-time checks")
struct RateLimitTests {
  @Test("a key over its requests per minute gets 429 with Retry-After and RetryInfo; another key does not; GeminiModel reads the delay")
  func perKeyLimit() async throws {
    let served = ServedModel(name: "m", model: ScriptedLanguageModel(), inputTokenLimit: 100, outputTokenLimit: 100) { _ in 1 }
    // The limits' clock stands still: nothing refills between the requests, however slowly a
    // loaded machine serves them (the bucket's refill is `bucketRefills`'s subject).
    let frozen = ContinuousClock.now
    let keys = APIKeyAuthority(keys: ["key-one", "key-two"], requestsPerMinute: 3, now: { frozen })
    let server = try await RunningServer.start([GeminiCompatibleAPI(models: [served])], configuration: ServerConfiguration(keys: keys))
    defer { Task { await server.stop() } }
    let models = server.baseURL.appendingPathComponent("v1beta/models")
    for _ in 0..<3 {
      #expect(try await TestHTTP.send(.GET, models, headers: ["x-goog-api-key": "key-one"]).status == 200)
    }
    let limited = try await TestHTTP.send(.GET, models, headers: ["x-goog-api-key": "key-one"])
    #expect(limited.status == 429 && limited.errorStatus == "RESOURCE_EXHAUSTED", "\(limited.text)")
    #expect(limited.errorMessage?.contains("3 requests per minute") == true)
    let retryAfter = try #require(limited.header("retry-after").flatMap(Int.init))
    #expect(retryAfter == 20, "one request comes back every 20 s: \(retryAfter)")
    let details = try #require(((try limited.json["error"] as? [String: Any])?["details"] as? [[String: Any]]))
    #expect(details.contains { ($0["@type"] as? String)?.hasSuffix("google.rpc.RetryInfo") == true
                               && $0["retryDelay"] as? String == "20s" }, "\(details)")
    #expect(try await TestHTTP.send(.GET, models, headers: ["x-goog-api-key": "key-two"]).status == 200, "each key has its own allowance")

    // What an app sees: GeminiModel's typed error with the server's delay (no retries here).
    let cloud = GeminiModel(name: "m", apiKey: "key-one", baseURL: server.baseURL,
                            configuration: .init(retryPolicy: .none))
    await #expect {
      _ = try await GenerativeModelSession(model: cloud).respond(to: "Hi")
    } throws: { error in
      guard case GenerationError.rateLimited(let delay?, _) = error else { return false }
      return delay == .seconds(20)
    }
  }

  @Test("the token bucket refills evenly over a minute; charged tokens may take it below zero until it refills")
  func bucketRefills() {
    let start = ContinuousClock.now
    let clock = Mutex(start)
    let limiter = RateLimiter { clock.withLock { $0 } }
    #expect(limiter.admit("k", perMinute: 2) == nil && limiter.admit("k", perMinute: 2) == nil)
    let wait = limiter.admit("k", perMinute: 2)
    #expect(wait.map { $0 > .seconds(29) && $0 <= .seconds(30) } == true, "\(String(describing: wait))")
    clock.withLock { $0 = start + .seconds(30) }
    #expect(limiter.admit("k", perMinute: 2) == nil, "one request back after half a minute")
    #expect(limiter.admit("k", perMinute: 2) != nil)
    #expect(limiter.admit("other", perMinute: 2) == nil)

    // Tokens: 60 a minute, 90 spent → 30 in debt: half a minute until any allowance is back.
    #expect(limiter.waitUntilPositive("t", perMinute: 60) == nil)
    limiter.charge("t", perMinute: 60, amount: 90)
    let debt = limiter.waitUntilPositive("t", perMinute: 60)
    #expect(debt.map { $0 > .seconds(29) && $0 <= .seconds(30) } == true, "\(String(describing: debt))")
    clock.withLock { $0 = start + .seconds(61) }
    #expect(limiter.waitUntilPositive("t", perMinute: 60) == nil)
  }

  @Test("keys match only exactly: a prefix, a longer string (even 256 bytes longer) and a near miss are refused")
  func constantTimeMatch() throws {
    let authority = APIKeyAuthority(keys: ["secret-key", "another"])
    #expect(try authority.authenticate("secret-key", for: .generate) != nil)
    #expect(try authority.authenticate("another", for: .generate) != nil)
    for guess in ["secret-ke", "secret-keyX", "secret-key" + String(repeating: "x", count: 256), "secret-kez", "ANOTHER"] {
      #expect(throws: GoogleAPIError.self, "\(guess.prefix(20))") { try authority.authenticate(guess, for: .generate) }
    }
    #expect { try authority.authenticate("", for: .generate) } throws: { ($0 as? GoogleAPIError)?.reason == "API_KEY_MISSING" }
    #expect(try APIKeyAuthority().authenticate(nil, for: .generate) == nil, "no keys: anyone")
  }
}
