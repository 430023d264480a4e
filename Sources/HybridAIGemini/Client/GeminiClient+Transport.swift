import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIHTTP
import NIOHTTP1

extension GeminiClient {
  /// The most bytes read from a unary response body (answers may hold inline images).
  static let maxResponseBytes = 64 << 20

  /// How this client sends: its HTTP client, retries and request timeout (see
  /// ``HybridAIHTTP/CloudHTTPTransport``).
  var transport: CloudHTTPTransport<GeminiError> {
    CloudHTTPTransport(httpClient: httpClient, retryPolicy: configuration.retryPolicy,
                       requestTimeout: configuration.requestTimeout, serviceName: "Gemini", logger: logger)
  }

  /// Sends a request and returns the response once its head arrived with a 2xx status.
  ///
  /// Retries 429/500/503/504 as the retry policy says, honouring `Retry-After` and `RetryInfo`;
  /// turns every other HTTP error into its ``GeminiError`` and transport failures into
  /// ``GeminiError/offline(_:detail:)`` (unreachable) or ``GeminiError/transportFailure(_:)``;
  /// cancellation into `CancellationError`.
  func send(_ method: HTTPMethod, _ endpoint: Endpoint, body: Data?, accept: String = "application/json",
            operation: String) async throws -> HTTPClientResponse {
    var headers = [("accept", accept), ("user-agent", "HybridAI-Gemini/1")]
    if let apiKey { headers.append(("x-goog-api-key", apiKey)) }
    return try await transport.send(method, url: endpoint.url(baseURL: baseURL, apiVersion: configuration.apiVersion),
                                    headers: headers, body: body, operation: operation)
  }

  /// Reads a whole (unary) response body; a failure here happened after the response began, so
  /// it is ``GeminiError/connectionLost(_:)``, never offline.
  func collectBody(_ response: HTTPClientResponse) async throws -> Data {
    try await transport.collectBody(response, upTo: Self.maxResponseBytes)
  }
}

extension GeminiError: CloudServiceError {
  /// The delay of a 429's `RetryInfo` detail.
  public var retryDelayFromBody: Duration? { apiError?.error?.retryDelay }
}
