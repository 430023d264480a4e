import HTTPTypes
import HybridAI
import HybridAIGemini

/// An error the server answers with, in Google's error envelope
/// (`{"error": {"code", "message", "status", "details"}}`) so Gemini clients classify it as they
/// would Google's own.
struct GoogleAPIError: Error, Sendable {
  let status: HTTPResponse.Status
  /// Google's canonical status name, e.g. `INVALID_ARGUMENT`.
  let statusName: String
  let message: String
  /// `google.rpc.ErrorInfo` reason, e.g. `API_KEY_INVALID`.
  let reason: String?
  /// Extra response headers, e.g. `WWW-Authenticate` with a 401 or `Content-Range` with a 416.
  var headers: HTTPFields = HTTPFields()

  var envelope: GoogleErrorEnvelope {
    var details: [JSONValue] = []
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

  static func invalidArgument(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .badRequest, statusName: "INVALID_ARGUMENT", message: message, reason: nil)
  }

  static let apiKeyInvalid = GoogleAPIError(
    status: .badRequest, statusName: "INVALID_ARGUMENT",
    message: "API key not valid. Please pass a valid API key.", reason: "API_KEY_INVALID")

  static let apiKeyMissing = GoogleAPIError(
    status: .forbidden, statusName: "PERMISSION_DENIED",
    message: "Method doesn't allow unregistered callers (callers without established identity). "
      + "Please use API Key or other form of API consumer identity to call this API.",
    reason: "API_KEY_MISSING")

  static func modelNotFound(_ name: String, method: String) -> GoogleAPIError {
    GoogleAPIError(
      status: .notFound, statusName: "NOT_FOUND",
      message: "models/\(name) is not found for API version v1beta, or is not supported for \(method). "
        + "Call ListModels to see the list of available models and their supported methods.",
      reason: nil)
  }

  static func methodNotFound(_ method: String) -> GoogleAPIError {
    GoogleAPIError(status: .notFound, statusName: "NOT_FOUND", message: "Method \(method) is not supported by this server.", reason: nil)
  }

  static func payloadTooLarge(limit: Int) -> GoogleAPIError {
    GoogleAPIError(status: .contentTooLarge, statusName: "INVALID_ARGUMENT",
                   message: "Request payload size exceeds the limit: \(limit) bytes.", reason: nil)
  }

  static func unavailable(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .serviceUnavailable, statusName: "UNAVAILABLE", message: message, reason: nil)
  }

  static func `internal`(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .internalServerError, statusName: "INTERNAL", message: message, reason: nil)
  }

  /// The API error for a failure of the model behind the server.
  static func from(generationError error: any Error) -> GoogleAPIError {
    switch error {
    case let error as GoogleAPIError:
      return error
    case GenerationError.exceededContextWindowSize(let prompt, let context):
      return .invalidArgument("The input token count (\(prompt)) exceeds the maximum number of tokens allowed (\(context)).")
    case GenerationError.unsupportedRequest(let reason):
      return .invalidArgument("Unsupported request: \(reason).")
    case GenerationError.modelUnavailable(let reason, let detail):
      return .unavailable("The model is unavailable: \(reason) (\(detail)).")
    default:
      return .internal("The model failed: \(error)")
    }
  }
}
