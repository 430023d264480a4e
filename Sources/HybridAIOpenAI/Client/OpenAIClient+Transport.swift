import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import NIOHTTP1

extension OpenAIClient {
  /// The most bytes read from a unary response body.
  static let maxResponseBytes = 64 << 20

  /// How this client sends: its HTTP client, retries and request timeout (see
  /// ``HybridAIHTTP/CloudHTTPTransport``).
  var transport: CloudHTTPTransport<OpenAIError> {
    CloudHTTPTransport(httpClient: httpClient, retryPolicy: configuration.retryPolicy,
                       requestTimeout: configuration.requestTimeout, serviceName: "OpenAI-compatible server",
                       logger: logger)
  }

  /// Sends a request to `path` below ``baseURL`` and returns the response once its head arrived
  /// with a 2xx status (see ``HybridAIHTTP/CloudHTTPTransport/send(_:url:headers:body:operation:)``).
  func send(_ method: HTTPMethod, path: String, body: Data?, accept: String = "application/json",
            operation: String) async throws -> HTTPClientResponse {
    var base = baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    var headers = [("accept", accept), ("user-agent", "HybridAI-OpenAI/1")]
    if let apiKey { headers.append(("authorization", "Bearer \(apiKey)")) }
    return try await transport.send(method, url: "\(base)/\(path)", headers: headers, body: body, operation: operation)
  }

  /// Reads a whole (unary) response body; a failure here is ``OpenAIError/connectionLost(_:)``.
  func collectBody(_ response: HTTPClientResponse) async throws -> Data {
    try await transport.collectBody(response, upTo: Self.maxResponseBytes)
  }
}

extension OpenAIError: CloudServiceError {
  /// OpenAI's envelope has no retry delay: only the `Retry-After` header says when.
  public var retryDelayFromBody: Duration? { nil }
}
