/// How `hybrid serve` listens and whom it answers.
public struct ServerConfiguration: Sendable {
  /// The address to bind; loopback by default, so nothing outside this machine can connect.
  public var host: String
  /// The TCP port; `0` picks a free one (see ``HybridServer/run(onListening:)``).
  public var port: Int
  /// Who may call, with what scopes and limits (`--api-key`, the key file); by default anyone.
  public var keys: APIKeyAuthority
  /// The largest request body accepted, in bytes.
  public var maxRequestBytes: Int
  /// How long requests still running (uploads, answers) may take once a stop's
  /// `onShutdownRequested` has returned (see ``HybridServer/run(onListening:onShutdownRequested:)``);
  /// then they are cancelled (an upload's staged bytes are removed, nothing is recorded) and the
  /// server returns. `nil`: it waits for them however long they take.
  public var shutdownGracePeriod: Duration?
  /// The web origins (`https://app.example.com`, or `*` for any) whose pages may call the APIs
  /// from a browser (CORS); empty (the default): none, as browsers assume.
  public var allowedOrigins: [String] = []

  /// A configuration whose callers are checked by `keys`.
  public init(host: String = "127.0.0.1", port: Int = 8080, keys: APIKeyAuthority = APIKeyAuthority(),
              maxRequestBytes: Int = 4 << 20) {
    self.host = host
    self.port = port
    self.keys = keys
    self.maxRequestBytes = maxRequestBytes
  }

  /// A configuration that needs one of `apiKeys` (none: anyone may call), each limited to
  /// `requestsPerMinutePerKey` requests a minute (`429 RESOURCE_EXHAUSTED` with `Retry-After` and
  /// `RetryInfo` above it) when given.
  public init(host: String = "127.0.0.1", port: Int = 8080, apiKeys: Set<String>, maxRequestBytes: Int = 4 << 20,
              requestsPerMinutePerKey: Int? = nil) {
    self.init(host: host, port: port, keys: APIKeyAuthority(keys: apiKeys, requestsPerMinute: requestsPerMinutePerKey),
              maxRequestBytes: maxRequestBytes)
  }
}
