import HybridAIServing
import PostgresNIO

/// The API keys' rate-limit buckets in the registry's database, shared by every instance on it
/// (`hybrid serve` hands the store to its ``APIKeyAuthority``): a key's limit holds across the
/// instances behind a load balancer instead of multiplying by their number.
///
/// Each change is one statement (an upsert on `api_key_rate_limit`), so concurrent requests from
/// any number of instances are counted one after another; a token check only reads, and a request
/// with both limits reads its tokens and takes its unit (only while they are not in debt) in one
/// statement (one round trip). Time is
/// the database's (`now()`), so the instances' clocks need not agree. The table is `UNLOGGED`: no
/// write-ahead log to wait for on each request; after a database crash the buckets start full. A
/// call waits at most ``Configuration/rateLimitTimeout`` (1 s unless the URL's `rate_limit_timeout`
/// says otherwise); one that fails throws, and the authority counts in the instance meanwhile.
extension PostgresRegistryStore: RateLimitLedger {
  public func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?) async throws -> Double {
    try await take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum, whilePositive: nil, perMinute: 1).before
  }

  public func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
                   whilePositive other: String, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double) {
    try await take(amount, from: bucket, perMinute: perMinute, ifAtLeast: minimum,
                   whilePositive: Optional(other), perMinute: otherPerMinute)
  }

  /// The take, only while `other` holds more than zero when given, in one statement.
  private func take(_ amount: Double, from bucket: String, perMinute: Int, ifAtLeast minimum: Double?,
                    whilePositive other: String?, perMinute otherPerMinute: Int) async throws -> (before: Double, other: Double) {
    precondition(perMinute > 0 && otherPerMinute > 0, "a limit must be positive")
    let capacity = Double(perMinute), otherCapacity = Double(otherPerMinute)
    // No minimum: every level qualifies, however deep in debt.
    let threshold = minimum ?? -Double.greatestFiniteMagnitude
    return try await perform("count an API key's use", within: configuration.rateLimitTimeout) { connection, logger in
      // `other_level`: `other` refilled up to now, full when it has no row (or no `other` was
      // given). It sees the table as the statement began, which is all it needs: `other` is
      // another bucket, and reading takes no row lock. `level`: the bucket refilled up to now
      // (full for a new one), kept as units_before_take; the take happens only when `level`
      // reaches the threshold and `other_level` is above zero.
      let rows = try await connection.query("""
        WITH other AS (
          SELECT coalesce((SELECT least(\(otherCapacity), units + extract(epoch FROM now() - update_time)::float8 * \(otherCapacity) / 60)
                           FROM api_key_rate_limit WHERE bucket = \(other)), \(otherCapacity)) AS other_level
        ), taken AS (
          INSERT INTO api_key_rate_limit AS b (bucket, units, units_before_take, update_time)
          VALUES (\(bucket), \(capacity) - CASE WHEN \(capacity) >= \(threshold) AND (SELECT other_level FROM other) > 0
                                               THEN \(amount) ELSE 0 END, \(capacity), now())
          ON CONFLICT (bucket) DO UPDATE SET (units_before_take, units, update_time) = (
            SELECT level, level - CASE WHEN level >= \(threshold) AND (SELECT other_level FROM other) > 0
                                       THEN \(amount) ELSE 0 END, now()
            FROM (SELECT least(\(capacity), b.units + extract(epoch FROM now() - b.update_time)::float8 * \(capacity) / 60) AS level) AS refill
          )
          RETURNING units_before_take
        )
        SELECT units_before_take, (SELECT other_level FROM other) FROM taken
        """, logger: logger)
      for try await levels in rows.decode((Double, Double).self) { return levels }
      throw RegistryStoreError.unavailable("PostgreSQL returned no row for a rate-limit bucket")
    }
  }

  public func level(of bucket: String, perMinute: Int) async throws -> Double {
    precondition(perMinute > 0, "a limit must be positive")
    let capacity = Double(perMinute)
    // A read: no row lock, so checking a key's tokens does not queue behind its other requests.
    return try await perform("read an API key's allowance", within: configuration.rateLimitTimeout) { connection, logger in
      let rows = try await connection.query("""
        SELECT least(\(capacity), units + extract(epoch FROM now() - update_time)::float8 * \(capacity) / 60)
        FROM api_key_rate_limit WHERE bucket = \(bucket)
        """, logger: logger)
      for try await level in rows.decode(Double.self) { return level }
      return capacity
    }
  }
}
