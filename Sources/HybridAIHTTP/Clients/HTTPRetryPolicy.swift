import Foundation

/// How often and how patiently a cloud request is retried after HTTP 429, 500, 503 or 504
/// (`GeminiModel`, `OpenAIModel`).
///
/// Other statuses (400, 401, 403, 404, …) and transport failures are never retried: a retry
/// could not help, or (offline) would only delay the fallback to the on-device model. Streams
/// are retried only before their first byte.
///
/// The delay before retry *n* (1-based) is `initialBackoff × 2^(n-1)`, capped at `maxBackoff`,
/// unless the server said when to retry (`Retry-After: <seconds>`, or a `RetryInfo` detail on
/// 429): then that delay is used. A server asking for more than `maxRetryAfter` is not retried.
///
/// ```swift
/// HTTPRetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(5), maxBackoff: .milliseconds(20))
/// ```
public struct HTTPRetryPolicy: Sendable, Hashable {
  /// Attempts in all, the first included; `1` means no retries.
  public var maxAttempts: Int
  /// The delay before the first retry.
  public var initialBackoff: Duration
  /// The longest computed delay.
  public var maxBackoff: Duration
  /// The longest delay a server may ask for and still be waited for.
  public var maxRetryAfter: Duration

  /// A policy; tests use millisecond backoffs.
  public init(maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(8),
              maxRetryAfter: Duration = .seconds(60)) {
    precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
    self.maxAttempts = maxAttempts
    self.initialBackoff = initialBackoff
    self.maxBackoff = maxBackoff
    self.maxRetryAfter = maxRetryAfter
  }

  /// Three attempts, 0.5 s then 1 s apart (or as the server asks, up to a minute).
  public static let `default` = HTTPRetryPolicy()
  /// No retries.
  public static let none = HTTPRetryPolicy(maxAttempts: 1)

  /// The HTTP statuses that are retried.
  public static let retryableStatuses: Set<Int> = [429, 500, 503, 504]

  /// The delay before retrying after failed attempt `attempt` (1-based), or `nil` when no retry
  /// is left or the server asked for a longer wait than ``maxRetryAfter``.
  public func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
    guard attempt < maxAttempts else { return nil }
    if let retryAfter {
      return retryAfter <= maxRetryAfter ? retryAfter : nil
    }
    var delay = initialBackoff
    for _ in 1..<max(attempt, 1) where delay < maxBackoff { delay *= 2 }
    return min(delay, maxBackoff)
  }

  /// The delay of a `Retry-After` header given in seconds (`"3"`, or leniently `"0.5"`);
  /// `nil` for HTTP dates and anything unparseable.
  public static func delay(retryAfterHeader header: String?) -> Duration? {
    guard let text = header?.trimmingCharacters(in: .whitespaces), let seconds = Double(text),
          seconds.isFinite, seconds >= 0, seconds < 86_400 * 365 else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
  }
}
