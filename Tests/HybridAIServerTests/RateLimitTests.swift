import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServer
@testable import HybridAIServing
import HybridAIServerTestSupport
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
  func bucketRefills() async throws {
    let start = ContinuousClock.now
    let clock = Mutex(start)
    let limiter = RateLimiter { clock.withLock { $0 } }
    #expect(try await limiter.admit("k", perMinute: 2) == nil)
    #expect(try await limiter.admit("k", perMinute: 2) == nil)
    let wait = try await limiter.admit("k", perMinute: 2)
    #expect(wait.map { $0 > .seconds(29) && $0 <= .seconds(30) } == true, "\(String(describing: wait))")
    clock.withLock { $0 = start + .seconds(30) }
    #expect(try await limiter.admit("k", perMinute: 2) == nil, "one request back after half a minute")
    #expect(try await limiter.admit("k", perMinute: 2) != nil)
    #expect(try await limiter.admit("other", perMinute: 2) == nil)

    // Tokens: 60 a minute, 90 spent → 30 in debt: half a minute until any allowance is back.
    #expect(try await limiter.waitUntilPositive("t", perMinute: 60) == nil)
    try await limiter.charge("t", perMinute: 60, amount: 90)
    let debt = try await limiter.waitUntilPositive("t", perMinute: 60)
    #expect(debt.map { $0 > .seconds(29) && $0 <= .seconds(30) } == true, "\(String(describing: debt))")
    clock.withLock { $0 = start + .seconds(61) }
    #expect(try await limiter.waitUntilPositive("t", perMinute: 60) == nil)
  }

  /// A shared ledger that can be made to fail, counting the calls that reach it.
  final class SwitchableLedger: RateLimitLedger {
    let failing = Mutex(false)
    let calls = Mutex(0)
    /// Its buckets never refill (a frozen clock), so what a test expects does not depend on how
    /// long a loaded machine takes between its calls.
    let buckets = RateLimiter(now: { SwitchableLedger.frozen })
    static let frozen = ContinuousClock.now
    struct Unreachable: Error {}

    func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) async throws -> Double {
      calls.withLock { $0 += 1 }
      if failing.withLock({ $0 }) { throw Unreachable() }
      return buckets.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum)
    }

    func level(of bucket: String, perMinute: Int) async throws -> Double {
      calls.withLock { $0 += 1 }
      if failing.withLock({ $0 }) { throw Unreachable() }
      return buckets.level(of: bucket, perMinute: perMinute)
    }

    func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
              whilePositive other: String, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double) {
      calls.withLock { $0 += 1 }
      if failing.withLock({ $0 }) { throw Unreachable() }
      // Through the protocol: its requirement is the limiter's own one-lock take (a direct call in
      // an async context would choose the extension's async two-call default).
      return try await (buckets as any RateLimitLedger).take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum,
                                                             whilePositive: other, perMinute: otherPerMinute)
    }
  }

  /// A ledger with only the two primitives: the protocol's two-call default does the combined take.
  struct PrimitivesOnlyLedger: RateLimitLedger {
    let buckets = RateLimiter(now: { SwitchableLedger.frozen })

    func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) async throws -> Double {
      buckets.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum)
    }

    func level(of bucket: String, perMinute: Int) async throws -> Double {
      buckets.level(of: bucket, perMinute: perMinute)
    }
  }

  @Test("a key with both limits costs the shared ledger one call per request (its unit and its token check together); the fallback keeps both limits")
  func bothLimitsInOneCall() async throws {
    let shared = SwitchableLedger()
    let authority = APIKeyAuthority(keys: ["k"], requestsPerMinute: 2, tokensPerMinute: 60, sharedLimits: shared)
    let key = try #require(try await authority.authenticate("k", for: .generate))
    #expect(shared.calls.withLock { $0 } == 1)
    await key.charge(tokens: 90)
    #expect(shared.calls.withLock { $0 } == 2)
    // Refused for its tokens, again and again: no request unit is spent on it (with 2 a minute,
    // the second refusal would otherwise name the request limit).
    for _ in 0..<3 {
      await #expect { try await authority.authenticate("k", for: .generate) } throws: {
        ($0 as? GoogleAPIError)?.message.contains("60 tokens per minute") == true
      }
    }
    #expect(shared.calls.withLock { $0 } == 5)
    // The same key without a token limit (another instance's configuration) shares the request
    // bucket: its one unit left is there, then none.
    let requestsOnly = APIKeyAuthority(keys: ["k"], requestsPerMinute: 2, sharedLimits: shared, now: { SwitchableLedger.frozen })
    #expect(try await requestsOnly.authenticate("k", for: .generate) != nil, "the second of two a minute")
    // Both limits refuse: the request limit's message wins.
    await #expect { try await authority.authenticate("k", for: .generate) } throws: {
      ($0 as? GoogleAPIError)?.message.contains("2 requests per minute") == true
    }

    // The protocol's two-call default behaves the same.
    let primitives = PrimitivesOnlyLedger()
    try await primitives.charge("tokens", perMinute: 60, amount: 90)
    let refused = try await primitives.admit("requests", perMinute: 2, whileTokensIn: "tokens", perMinute: 60)
    #expect(refused.request == nil && refused.tokens != nil)
    #expect(try await primitives.level(of: "requests", perMinute: 2) == 2, "no unit taken while the tokens are in debt")
    #expect(try await primitives.admit("requests", perMinute: 2, whileTokensIn: "fresh", perMinute: 60) == (nil, nil))
    #expect(try await primitives.level(of: "requests", perMinute: 2) == 1)

    shared.failing.withLock { $0 = true }
    let fallback = APIKeyAuthority(keys: ["k"], requestsPerMinute: 2, tokensPerMinute: 60, sharedLimits: shared,
                                   now: { SwitchableLedger.frozen })
    let local = try #require(try await fallback.authenticate("k", for: .generate), "counted in the instance")
    await local.charge(tokens: 90)
    await #expect { try await fallback.authenticate("k", for: .generate) } throws: {
      ($0 as? GoogleAPIError)?.message.contains("60 tokens per minute") == true
    }
  }

  @Test("with a shared ledger, a key's limit is counted there; while it fails each instance counts by itself, asks it again only after the retry interval, and no request is refused for it")
  func sharedLedgerFallsBack() async throws {
    let shared = SwitchableLedger()
    let first = APIKeyAuthority(keys: ["k"], requestsPerMinute: 3, sharedLimits: shared, now: { SwitchableLedger.frozen })
    let second = APIKeyAuthority(keys: ["k"], requestsPerMinute: 3, sharedLimits: shared, now: { SwitchableLedger.frozen })
    #expect(try await first.authenticate("k", for: .generate) != nil)
    #expect(try await second.authenticate("k", for: .generate) != nil)
    #expect(try await first.authenticate("k", for: .generate) != nil)
    await #expect(throws: GoogleAPIError.self, "three in all, from either: the fourth is over the shared limit") {
      _ = try await second.authenticate("k", for: .generate)
    }

    shared.failing.withLock { $0 = true }
    let callsBefore = shared.calls.withLock { $0 }
    for _ in 0..<3 { #expect(try await second.authenticate("k", for: .generate) != nil, "counted in the instance") }
    await #expect(throws: GoogleAPIError.self, "the instance's own limit still holds") {
      _ = try await second.authenticate("k", for: .generate)
    }
    #expect(shared.calls.withLock { $0 } == callsBefore + 1, "after one failure the shared ledger is left alone for a while")
    let problem = try #require(second.sharedLimitsProblem, "readyz says the limits are per instance now")
    #expect(problem.contains("Unreachable") && problem.contains("each instance limits keys by itself"), "\(problem)")
    #expect(APIKeyAuthority(keys: ["k"], requestsPerMinute: 3).sharedLimitsProblem == nil, "limits kept in memory never fail")

    let ledger = FallbackRateLimitLedger(shared: shared, local: RateLimiter(), retryInterval: .milliseconds(100),
                                         logger: TestLogging.logger("keys"))
    _ = try await ledger.take(1, from: "b", perMinute: 10, ifAtLeast: 1)
    #expect(ledger.isFallingBack)
    shared.failing.withLock { $0 = false }
    try await Task.sleep(for: .milliseconds(150))
    #expect(try await ledger.take(1, from: "b", perMinute: 10, ifAtLeast: 1) == 10, "back to the shared bucket, untouched so far")
    #expect(!ledger.isFallingBack && ledger.problem == nil)
  }

  @Test("keys match only exactly: a prefix, a longer string (even 256 bytes longer) and a near miss are refused")
  func constantTimeMatch() async throws {
    let authority = APIKeyAuthority(keys: ["secret-key", "another"])
    #expect(try await authority.authenticate("secret-key", for: .generate) != nil)
    #expect(try await authority.authenticate("another", for: .generate) != nil)
    for guess in ["secret-ke", "secret-keyX", "secret-key" + String(repeating: "x", count: 256), "secret-kez", "ANOTHER"] {
      await #expect(throws: GoogleAPIError.self, "\(guess.prefix(20))") { try await authority.authenticate(guess, for: .generate) }
    }
    await #expect { try await authority.authenticate("", for: .generate) } throws: { ($0 as? GoogleAPIError)?.reason == "API_KEY_MISSING" }
    #expect(try await APIKeyAuthority().authenticate(nil, for: .generate) == nil, "no keys: anyone")
  }
}
