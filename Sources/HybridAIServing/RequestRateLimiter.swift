import Synchronization

/// Requests per minute per API key, as token buckets: each key may send `requestsPerMinute`
/// requests in a burst, refilled evenly over a minute. A request over the limit is refused with
/// the time until the next one is allowed.
public final class RequestRateLimiter: Sendable {
  /// The most requests per key per minute.
  public let requestsPerMinute: Int
  private let buckets = Mutex<[String: Bucket]>([:])
  private let now: @Sendable () -> ContinuousClock.Instant

  struct Bucket {
    var tokens: Double
    var updated: ContinuousClock.Instant
  }

  public init(requestsPerMinute: Int, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    precondition(requestsPerMinute > 0, "a limit must be positive")
    self.requestsPerMinute = requestsPerMinute
    self.now = now
  }

  /// Takes one request of `key`'s allowance: `nil` when allowed, else how long until it would be.
  public func admit(_ key: String) -> Duration? {
    let capacity = Double(requestsPerMinute)
    let perSecond = capacity / 60
    let now = self.now()
    return buckets.withLock { buckets in
      var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
      let elapsed = now - bucket.updated
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      bucket.tokens = min(capacity, bucket.tokens + seconds * perSecond)
      bucket.updated = now
      defer { buckets[key] = bucket }
      if bucket.tokens >= 1 {
        bucket.tokens -= 1
        return nil
      }
      return .seconds((1 - bucket.tokens) / perSecond)
    }
  }
}
