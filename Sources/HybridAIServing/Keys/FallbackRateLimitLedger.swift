import Logging
import Synchronization

/// A shared ledger (the registry's database) with this process's own ``RateLimiter`` standing in
/// while the shared one fails: the limits then hold per instance, as if the instance ran alone,
/// and no request is refused for a database that is away. After a failure the shared ledger is
/// asked again only `retryInterval` later, so requests meanwhile do not wait on it.
final class FallbackRateLimitLedger: RateLimitLedger {
  let shared: any RateLimitLedger
  let local: RateLimiter
  let retryInterval: Duration
  private let outage = Mutex<Outage?>(nil)
  private let logger: Logger

  /// Since when the shared ledger fails, when it last did, and how.
  struct Outage {
    var since: ContinuousClock.Instant
    var lastFailure: ContinuousClock.Instant
    var error: String
  }

  init(shared: any RateLimitLedger, local: RateLimiter, retryInterval: Duration = .seconds(5), logger: Logger) {
    self.shared = shared
    self.local = local
    self.retryInterval = retryInterval
    self.logger = logger
  }

  /// Whether the shared ledger failed the last time it was asked (the limits are per instance now).
  var isFallingBack: Bool { outage.withLock { $0 != nil } }

  /// While the shared ledger fails: since when, its last error, and what that means for the
  /// limits (`/readyz` reports it as degraded); `nil` while it answers.
  var problem: String? {
    guard let outage = outage.withLock({ $0 }) else { return nil }
    let seconds = (ContinuousClock.now - outage.since).components.seconds
    return "the shared API key limits have failed for \(seconds) s (\(outage.error)): each instance limits keys by "
      + "itself until they answer again"
  }

  func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) async throws -> Double {
    try await withFallback {
      try await $0.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum)
    } local: {
      $0.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum)
    }
  }

  func level(of bucket: String, perMinute: Int) async throws -> Double {
    try await withFallback { try await $0.level(of: bucket, perMinute: perMinute) } local: { $0.level(of: bucket, perMinute: perMinute) }
  }

  func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
            whilePositive other: String, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double) {
    try await withFallback {
      try await $0.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum, whilePositive: other, perMinute: otherPerMinute)
    } local: {
      $0.take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum, whilePositive: other, perMinute: otherPerMinute)
    }
  }

  /// `shared`'s answer from the shared ledger, or `local`'s from this process's while it fails.
  private func withFallback<Levels>(_ shared: (any RateLimitLedger) async throws -> Levels,
                                    local: (RateLimiter) -> Levels) async throws -> Levels {
    if let outage = outage.withLock({ $0 }), ContinuousClock.now - outage.lastFailure < retryInterval {
      return local(self.local)
    }
    do {
      let level = try await shared(self.shared)
      if let ended = outage.withLock({ outage in defer { outage = nil }; return outage }) {
        logger.notice("shared API key limits are back: each key's limit holds across instances again",
                      metadata: ["outageSeconds": "\((ContinuousClock.now - ended.since).components.seconds)"])
      }
      return level
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      let now = ContinuousClock.now
      let began = outage.withLock { outage in
        defer { outage = Outage(since: outage?.since ?? now, lastFailure: now, error: "\(error)") }
        return outage == nil
      }
      if began {
        logger.warning("shared API key limits are unavailable: each instance limits keys by itself until they are back",
                       metadata: ["error": "\(error)", "retryInSeconds": "\(retryInterval.components.seconds)"])
      }
      return local(self.local)
    }
  }
}
