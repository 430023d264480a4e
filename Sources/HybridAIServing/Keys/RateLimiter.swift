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
    let now = self.now()
    return buckets.withLock { Self.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum, in: &$0, at: now) }
  }

  /// Both buckets under one lock: no request changes `other` between the read and the take.
  public func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
                   whilePositive other: String, perMinute otherPerMinute: Int) -> (before: Double, other: Double) {
    let now = self.now()
    return buckets.withLock { buckets in
      let otherLevel = Self.level(buckets[other], perMinute: otherPerMinute, at: now)
      let before = otherLevel > 0
        ? Self.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum, in: &buckets, at: now)
        : Self.level(buckets[bucket], perMinute: perMinute, at: now)
      return (before, otherLevel)
    }
  }

  public func level(of bucket: String, perMinute: Int) -> Double {
    let now = self.now()
    return Self.level(buckets.withLock { $0[bucket] }, perMinute: perMinute, at: now)
  }

  /// Refills `bucket` up to `now` and takes `amount` from it if it holds at least `minimum`;
  /// returns what it held before.
  private static func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
                           in buckets: inout [String: Bucket], at now: ContinuousClock.Instant) -> Double {
    let level = level(buckets[bucket], perMinute: perMinute, at: now)
    buckets[bucket] = Bucket(units: level - (minimum.map { level >= $0 } ?? true ? amount : 0), updated: now)
    return level
  }

  /// What `bucket` holds at `now`: refilled since its last change, up to `perMinute`; full when new.
  private static func level(_ bucket: Bucket?, perMinute: Int, at now: ContinuousClock.Instant) -> Double {
    precondition(perMinute > 0, "a limit must be positive")
    let capacity = Double(perMinute)
    guard let bucket else { return capacity }
    let elapsed = now - bucket.updated
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return min(capacity, bucket.units + seconds * capacity / 60)
  }
}
