/// How patiently the downloader retries after interruptions and transient server errors.
///
/// A download resumes where it stopped after every interruption (a cut connection, a read error,
/// a `5xx`), so an attempt that received bytes is never wasted and resets the count: only attempts
/// *without progress* are limited, to ``maxAttemptsWithoutProgress`` in a row. The delay before a
/// retry is ``initialBackoff`` after an attempt that made progress, and doubles (up to
/// ``maxBackoff``) with each further attempt without.
///
/// ```swift
/// ModelDownloadRetryPolicy(maxAttemptsWithoutProgress: 3, initialBackoff: .milliseconds(1))   // tests
/// ```
public struct ModelDownloadRetryPolicy: Sendable, Hashable {
  /// Failed attempts in a row, without a byte of progress, before giving up.
  public var maxAttemptsWithoutProgress: Int
  /// The delay before the first retry.
  public var initialBackoff: Duration
  /// The longest delay between retries.
  public var maxBackoff: Duration
  /// How often the network is checked again while waiting for an allowed one
  /// (``ModelDownloadConditions/waitsForAllowedNetwork``).
  public var networkPollInterval: Duration

  /// A policy.
  public init(maxAttemptsWithoutProgress: Int = 5, initialBackoff: Duration = .milliseconds(250),
              maxBackoff: Duration = .seconds(8), networkPollInterval: Duration = .seconds(5)) {
    precondition(maxAttemptsWithoutProgress >= 1, "maxAttemptsWithoutProgress must be at least 1")
    self.maxAttemptsWithoutProgress = maxAttemptsWithoutProgress
    self.initialBackoff = initialBackoff
    self.maxBackoff = maxBackoff
    self.networkPollInterval = networkPollInterval
  }

  /// Five attempts without progress; 0.25 s, 0.5 s, 1 s, 2 s between them.
  public static let `default` = ModelDownloadRetryPolicy()

  /// The delay before the next attempt, after `failuresWithoutProgress` failed attempts in a row
  /// without progress (0 when the last attempt made progress).
  func delay(afterFailuresWithoutProgress failures: Int) -> Duration {
    var delay = initialBackoff
    var remaining = failures - 1
    while remaining > 0, delay < maxBackoff {
      delay *= 2
      remaining -= 1
    }
    return min(delay, maxBackoff)
  }
}
