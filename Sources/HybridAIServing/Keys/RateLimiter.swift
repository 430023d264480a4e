import Synchronization

/// Token buckets per key: each key may spend `perMinute` units in a burst, refilled evenly over a
/// minute. Requests cost one unit each (``admit(_:perMinute:)``); generated tokens are charged
/// after the answer (``charge(_:perMinute:amount:)``), which may take the bucket below zero, and
/// the next request waits until it is above zero again (``waitUntilPositive(_:perMinute:)``).
public final class RateLimiter: Sendable {
  private let buckets = Mutex<[String: Bucket]>([:])
  private let now: @Sendable () -> ContinuousClock.Instant

  struct Bucket {
    var units: Double
    var updated: ContinuousClock.Instant
  }

  public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    self.now = now
  }

  /// Takes one unit of `key`'s allowance: `nil` when there was one, else how long until there is.
  public func admit(_ key: String, perMinute: Int) -> Duration? {
    withBucket(key, perMinute: perMinute) { bucket in
      guard bucket.units < 1 else {
        bucket.units -= 1
        return nil
      }
      return .seconds((1 - bucket.units) * 60 / Double(perMinute))
    }
  }

  /// `nil` while `key` has any allowance left, else how long until it has.
  public func waitUntilPositive(_ key: String, perMinute: Int) -> Duration? {
    withBucket(key, perMinute: perMinute) { bucket in
      bucket.units > 0 ? nil : .seconds(max(1e-3, -bucket.units) * 60 / Double(perMinute))
    }
  }

  /// Spends `amount` units of `key`'s allowance, going below zero if need be.
  public func charge(_ key: String, perMinute: Int, amount: Int) {
    guard amount > 0 else { return }
    withBucket(key, perMinute: perMinute) { bucket in bucket.units -= Double(amount) }
  }

  /// Runs `body` on `key`'s bucket, refilled up to now.
  private func withBucket<T>(_ key: String, perMinute: Int, _ body: (inout Bucket) -> T) -> T {
    precondition(perMinute > 0, "a limit must be positive")
    let capacity = Double(perMinute)
    let now = self.now()
    return buckets.withLock { buckets in
      var bucket = buckets[key] ?? Bucket(units: capacity, updated: now)
      let elapsed = now - bucket.updated
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      bucket.units = min(capacity, bucket.units + seconds * capacity / 60)
      bucket.updated = now
      defer { buckets[key] = bucket }
      return body(&bucket)
    }
  }
}
