/// Where the token buckets behind API keys' limits are kept: each bucket holds up to `perMinute`
/// units, refilled evenly over a minute. ``RateLimiter`` keeps them in this process; a registry
/// database that several instances share keeps them for all of them (`PostgresRegistryStore`), so
/// a key's limit holds across the instances behind a load balancer.
///
/// Two primitives: ``take(_:from:perMinute:ifAtLeast:)``, done atomically, and
/// ``level(of:perMinute:)``, which only reads; requests, token debts and charges are built on them
/// (``admit(_:perMinute:)``, ``waitUntilPositive(_:perMinute:)``, ``charge(_:perMinute:amount:)``).
public protocol RateLimitLedger: Sendable {
  /// Refills `bucket` up to now, then takes `amount` units from it if it holds at least `minimum`
  /// (always when `minimum` is `nil`, which may take it below zero); returns the units it held
  /// before taking. A bucket not seen before starts full.
  func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) async throws -> Double

  /// The units `bucket` holds now, refilled up to now, changing nothing (`perMinute` for a bucket
  /// not seen before).
  func level(of bucket: String, perMinute: Int) async throws -> Double

  /// ``take(_:from:perMinute:ifAtLeast:)`` on `bucket` only while `other` holds more than zero
  /// units, in one call: a database reads `other` and takes from `bucket` in one round trip.
  /// Returns the level `bucket` held before (whether taken from or not) and `other`'s level.
  func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
            whilePositive other: String, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double)
}

extension RateLimitLedger {
  /// Two calls one after the other (not atomic: another request may change `other` between them);
  /// a ledger whose calls are cheap needs nothing better.
  public func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
                   whilePositive other: String, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double) {
    let otherLevel = try await level(of: other, perMinute: otherPerMinute)
    let before = otherLevel > 0
      ? try await take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum)
      : try await level(of: bucket, perMinute: perMinute)
    return (before, otherLevel)
  }

  /// Takes one unit of `bucket`'s allowance: `nil` when there was one, else how long until there is.
  public func admit(_ bucket: String, perMinute: Int) async throws -> Duration? {
    Self.admissionWait(levelBefore: try await take(1, from: bucket, perMinute: perMinute, ifAtLeast: 1), perMinute: perMinute)
  }

  /// `nil` while `bucket` has any allowance left, else how long until it has.
  public func waitUntilPositive(_ bucket: String, perMinute: Int) async throws -> Duration? {
    Self.positiveWait(level: try await level(of: bucket, perMinute: perMinute), perMinute: perMinute)
  }

  /// ``admit(_:perMinute:)`` on `requests` and ``waitUntilPositive(_:perMinute:)`` on `tokens` in
  /// one call (one round trip to a shared ledger): how long until each lets a request in, `nil`
  /// where it does now. The request's unit is taken only while `tokens` lets it in, so a client
  /// that retries through a token debt does not spend its request allowance too.
  public func admit(_ requests: String, perMinute: Int, whileTokensIn tokens: String,
                    perMinute tokensPerMinute: Int) async throws -> (request: Duration?, tokens: Duration?) {
    let levels = try await take(1, from: requests, perMinute: perMinute, ifAtLeast: 1,
                                whilePositive: tokens, perMinute: tokensPerMinute)
    return (Self.admissionWait(levelBefore: levels.before, perMinute: perMinute),
            Self.positiveWait(level: levels.other, perMinute: tokensPerMinute))
  }

  /// Spends `amount` units of `bucket`'s allowance, going below zero if need be.
  public func charge(_ bucket: String, perMinute: Int, amount: Int) async throws {
    guard amount > 0 else { return }
    _ = try await take(Double(amount), from: bucket, perMinute: perMinute, ifAtLeast: nil)
  }

  private static func admissionWait(levelBefore level: Double, perMinute: Int) -> Duration? {
    level >= 1 ? nil : .seconds((1 - level) * 60 / Double(perMinute))
  }

  private static func positiveWait(level: Double, perMinute: Int) -> Duration? {
    level > 0 ? nil : .seconds(max(1e-3, -level) * 60 / Double(perMinute))
  }
}
