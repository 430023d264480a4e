import HybridAIHTTP

extension GeminiClient {
  /// Retries after HTTP 429 and 5xx (see ``HybridAIHTTP/HTTPRetryPolicy``).
  public typealias RetryPolicy = HTTPRetryPolicy

  /// How a ``GeminiClient`` (and a ``GeminiModel``) talks to the API.
  public struct Configuration: Sendable, Hashable {
    /// The API version in the URL path.
    public var apiVersion: String
    /// How long connecting may take before the service counts as unreachable
    /// (``HybridAI/OfflineReason/connectTimeout``). Used when the client manages its own
    /// `HTTPClient`; a client you pass in uses its own setting.
    public var connectTimeout: Duration
    /// How long the connection may stay silent while waiting for a response or the next chunk of
    /// a stream; `nil` waits forever. Used when the client manages its own `HTTPClient`.
    public var readTimeout: Duration?
    /// A limit on each whole request, response body included; `nil` for none.
    public var requestTimeout: Duration?
    /// Retries after 429 and 5xx responses.
    public var retryPolicy: RetryPolicy

    /// A configuration; every parameter has a production default.
    public init(apiVersion: String = "v1beta", connectTimeout: Duration = .seconds(10),
                readTimeout: Duration? = .seconds(300), requestTimeout: Duration? = nil,
                retryPolicy: RetryPolicy = .default) {
      self.apiVersion = apiVersion
      self.connectTimeout = connectTimeout
      self.readTimeout = readTimeout
      self.requestTimeout = requestTimeout
      self.retryPolicy = retryPolicy
    }
  }
}
