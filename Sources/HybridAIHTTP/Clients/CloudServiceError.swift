import Foundation
import HybridAI

/// The error type of a cloud API client (`GeminiError`, `OpenAIError`): what ``CloudHTTPTransport``
/// makes of HTTP error responses and transport failures. Enum cases of the same shape satisfy it.
public protocol CloudServiceError: Error, Sendable {
  /// The typed error for an HTTP error response (status, body, `Retry-After` header).
  static func http(status: Int, body: Data, retryAfterHeader: String?) -> Self
  /// The service could not be reached (a failure before any response, see ``OfflineClassification``).
  static func offline(_ reason: OfflineReason, detail: String) -> Self
  /// Any other failure before a response.
  static func transportFailure(_ detail: String) -> Self
  /// A failure while the response body was arriving.
  static func connectionLost(_ detail: String) -> Self
  /// A response that cannot be used (too large, undecodable).
  static func invalidResponse(_ detail: String) -> Self
  /// How long the server asked to wait before a retry, from the error's body (Google's
  /// `RetryInfo`); `nil` when it did not say so there.
  var retryDelayFromBody: Duration? { get }
}
