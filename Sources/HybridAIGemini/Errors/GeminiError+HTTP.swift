import Foundation
import HybridAIHTTP
import HybridAIWire

extension GeminiError {
  /// The typed error for an HTTP error response: its status and body (a Google error envelope,
  /// or anything else).
  ///
  /// | status | error |
  /// |---|---|
  /// | 400 with reason `API_KEY_INVALID`, or 401 | ``invalidAPIKey(_:)`` |
  /// | 400 | ``invalidArgument(_:)`` |
  /// | 403 with reason `SERVICE_DISABLED` | ``apiNotEnabled(_:)`` |
  /// | 403 | ``permissionDenied(_:)`` |
  /// | 404 with a Google error body (not "The requested URL … was not found") | ``unknownModel(_:)`` |
  /// | 429 | ``quotaExceeded(_:retryAfter:)`` (`Retry-After` header or `RetryInfo` detail) |
  /// | 5xx | ``serverError(_:)`` |
  /// | other (a 404 for a path the server does not have, e.g. a wrong base URL) | ``httpError(_:)`` |
  public static func http(status: Int, body: Data, retryAfterHeader: String? = nil) -> GeminiError {
    let envelope = try? Gemini.JSON.decode(GoogleErrorEnvelope.self, from: body)
    let raw = envelope == nil ? String(decoding: body.prefix(2048), as: UTF8.self) : nil
    let apiError = APIError(httpStatus: status, error: envelope?.error, rawBody: raw)
    let reason = apiError.reason
    switch status {
    case 401:
      return .invalidAPIKey(apiError)
    case 400 where reason == "API_KEY_INVALID" || apiError.message.contains("API key not valid"):
      return .invalidAPIKey(apiError)
    case 400:
      return .invalidArgument(apiError)
    case 403 where reason == "SERVICE_DISABLED" || reason == "API_DISABLED":
      return .apiNotEnabled(apiError)
    case 403:
      return .permissionDenied(apiError)
    case 404 where envelope != nil && !apiError.message.hasPrefix("The requested URL"):
      return .unknownModel(apiError)
    case 429:
      return .quotaExceeded(apiError, retryAfter: parseRetryAfter(retryAfterHeader) ?? apiError.error?.retryDelay)
    case 500...599:
      return .serverError(apiError)
    default:
      return .httpError(apiError)
    }
  }

  /// The delay of a `Retry-After` header given in seconds (see
  /// ``HybridAIHTTP/HTTPRetryPolicy/delay(retryAfterHeader:)``).
  public static func parseRetryAfter(_ header: String?) -> Duration? {
    HTTPRetryPolicy.delay(retryAfterHeader: header)
  }
}
