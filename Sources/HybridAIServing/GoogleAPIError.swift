import HTTPTypes
import HybridAI
import HybridAIWire

/// An error the server answers with, in Google's error envelope
/// (`{"error": {"code", "message", "status", "details"}}`) so Gemini clients classify it as they
/// would Google's own. Every product `hybrid serve` composes (the Gemini API, the model registry)
/// throws these; ``GoogleErrorMiddleware`` writes them.
public struct GoogleAPIError: Error, Sendable {
  /// The HTTP status.
  public let status: HTTPResponse.Status
  /// Google's canonical status name, e.g. `INVALID_ARGUMENT`.
  public let statusName: String
  /// A developer-facing message.
  public let message: String
  /// `google.rpc.ErrorInfo` reason, e.g. `API_KEY_INVALID`.
  public let reason: String?
  /// Extra response headers, e.g. `WWW-Authenticate` with a 401 or `Content-Range` with a 416.
  public var headers: HTTPFields
  /// When to try again (a 429): sent as a `google.rpc.RetryInfo` detail, as Google does.
  public var retryDelay: Duration?
  /// The model a ``modelNotFound(_:method:)`` error names (not sent: for translating the error
  /// into another API's terms).
  public var missingModel: String?

  /// An error from its parts.
  public init(status: HTTPResponse.Status, statusName: String, message: String, reason: String?,
              headers: HTTPFields = HTTPFields()) {
    self.status = status
    self.statusName = statusName
    self.message = message
    self.reason = reason
    self.headers = headers
  }

  /// The error as Google's envelope.
  public var envelope: GoogleErrorEnvelope {
    var details: [JSONValue] = []
    if let retryDelay {
      details.append(.object([
        "@type": .string("type.googleapis.com/google.rpc.RetryInfo"),
        "retryDelay": .string("\(Self.wholeSeconds(retryDelay))s"),
      ]))
    }
    if let reason {
      details.append(.object([
        "@type": .string("type.googleapis.com/google.rpc.ErrorInfo"),
        "reason": .string(reason),
        "domain": .string("googleapis.com"),
        "metadata": .object(["service": .string("generativelanguage.googleapis.com")]),
      ]))
    }
    return GoogleErrorEnvelope(code: Int(status.code), message: message, status: statusName,
                               details: details.isEmpty ? nil : details)
  }

  /// `429 RESOURCE_EXHAUSTED` with `Retry-After` and a `RetryInfo` detail when `retryAfter` is known.
  public static func rateLimited(_ message: String, retryAfter: Duration?) -> GoogleAPIError {
    var error = GoogleAPIError(status: .tooManyRequests, statusName: "RESOURCE_EXHAUSTED", message: message, reason: nil)
    if let retryAfter {
      error.headers[.retryAfter] = "\(wholeSeconds(retryAfter))"
      error.retryDelay = retryAfter
    }
    return error
  }

  /// `duration` in whole seconds, rounded up, at least 1.
  static func wholeSeconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
  }

  public static func invalidArgument(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .badRequest, statusName: "INVALID_ARGUMENT", message: message, reason: nil)
  }

  public static let apiKeyInvalid = GoogleAPIError(
    status: .badRequest, statusName: "INVALID_ARGUMENT",
    message: "API key not valid. Please pass a valid API key.", reason: "API_KEY_INVALID")

  public static let apiKeyMissing = GoogleAPIError(
    status: .forbidden, statusName: "PERMISSION_DENIED",
    message: "Method doesn't allow unregistered callers (callers without established identity). "
      + "Please use API Key or other form of API consumer identity to call this API.",
    reason: "API_KEY_MISSING")

  public static func modelNotFound(_ name: String, method: String) -> GoogleAPIError {
    var error = GoogleAPIError(
      status: .notFound, statusName: "NOT_FOUND",
      message: "models/\(name) is not found for API version v1beta, or is not supported for \(method). "
        + "Call ListModels to see the list of available models and their supported methods.",
      reason: nil)
    error.missingModel = name
    return error
  }

  public static func methodNotFound(_ method: String) -> GoogleAPIError {
    GoogleAPIError(status: .notFound, statusName: "NOT_FOUND", message: "Method \(method) is not supported by this server.", reason: nil)
  }

  public static func payloadTooLarge(limit: Int) -> GoogleAPIError {
    GoogleAPIError(status: .contentTooLarge, statusName: "INVALID_ARGUMENT",
                   message: "Request payload size exceeds the limit: \(limit) bytes.", reason: nil)
  }

  /// 507 Insufficient Storage: the server's disk cannot take what was sent (a full disk, a quota).
  public static func insufficientStorage(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .init(code: 507, reasonPhrase: "Insufficient Storage"), statusName: "RESOURCE_EXHAUSTED",
                   message: message, reason: nil)
  }

  public static func unavailable(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .serviceUnavailable, statusName: "UNAVAILABLE", message: message, reason: nil)
  }

  public static func `internal`(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .internalServerError, statusName: "INTERNAL", message: message, reason: nil)
  }
}
