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
  /// How long a connection may wait for its next request's headers — after it opens, after an
  /// answer, or between two parts of a request body — before the server closes it; so a client
  /// that sends its headers a byte at a time (slowloris) cannot hold a connection. Longer than
  /// HTTP clients keep idle connections (AsyncHTTPClient 60 s), as nginx's 75 s. A request whose
  /// answer is being written is never cut. `nil`: no limit.
  public var idleTimeout: Duration? = .seconds(75)
  /// How long a request's line and headers may take from their first byte, however steadily they
  /// trickle in (as nginx's `client_header_timeout`, 60 s); then the connection is closed. A
  /// request's body and an idle connection are not counted here (see ``idleTimeout``). `nil`: no limit.
  public var requestHeadTimeout: Duration? = .seconds(60)
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
