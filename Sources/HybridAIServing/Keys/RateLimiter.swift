import Synchronization

/// Token buckets in this process's memory (a ``RateLimitLedger``): each key may spend `perMinute`
/// units in a burst, refilled evenly over a minute. Requests cost one unit each (``admit(_:perMinute:)``);
/// generated tokens are charged after the answer (``charge(_:perMinute:amount:)``), which may take
/// the bucket below zero, and the next request waits until it is above zero again
/// (``waitUntilPositive(_:perMinute:)``).
public final class RateLimiter: RateLimitLedger {
  private let buckets = Mutex<[String: Bucket]>([:])
  private let now: @Sendable () -> ContinuousClock.Instant

  struct Bucket {
    var units: Double
    var updated: ContinuousClock.Instant
  }

  public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    self.now = now
  }

  public func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) -> Double {
    precondition(perMinute > 0, "a limit must be positive")
    let capacity = Double(perMinute)
    let now = self.now()
    return buckets.withLock { buckets in
      var state = buckets[bucket] ?? Bucket(units: capacity, updated: now)
      let elapsed = now - state.updated
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      let level = min(capacity, state.units + seconds * capacity / 60)
      state.units = level - (minimum.map { level >= $0 } ?? true ? amount : 0)
      state.updated = now
      buckets[bucket] = state
      return level
    }
  }
}
