/// How `hybrid serve` listens and whom it answers.
public struct ServerConfiguration: Sendable {
  /// The address to bind; loopback by default, so nothing outside this machine can connect.
  public var host: String
  /// The TCP port; `0` picks a free one (see ``HybridServer/run(onListening:)``).
  public var port: Int
  /// API keys clients must send (`x-goog-api-key` header or `key` query parameter). Empty: no key needed.
  public var apiKeys: Set<String>
  /// The largest request body accepted, in bytes.
  public var maxRequestBytes: Int
  /// Requests per minute each API key may send to client routes (`429 RESOURCE_EXHAUSTED` with
  /// `Retry-After` and `RetryInfo` above it); `nil`: no limit. Needs ``apiKeys``.
  public var rateLimiter: RequestRateLimiter?

  public init(host: String = "127.0.0.1", port: Int = 8080, apiKeys: Set<String> = [], maxRequestBytes: Int = 4 << 20,
              requestsPerMinutePerKey: Int? = nil) {
    self.host = host
    self.port = port
    self.apiKeys = apiKeys
    self.maxRequestBytes = maxRequestBytes
    self.rateLimiter = requestsPerMinutePerKey.map { RequestRateLimiter(requestsPerMinute: $0) }
  }
}
