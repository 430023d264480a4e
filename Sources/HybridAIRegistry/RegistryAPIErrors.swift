import HTTPTypes
import HybridAIServing

/// The registry's errors, in Google's envelope like the Gemini endpoints' (see docs/model-delivery.md).
extension GoogleAPIError {
  static func notFound(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .notFound, statusName: "NOT_FOUND", message: message, reason: nil)
  }

  static func alreadyExists(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .conflict, statusName: "ALREADY_EXISTS", message: message, reason: nil)
  }

  static func failedPrecondition(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .badRequest, statusName: "FAILED_PRECONDITION", message: message, reason: nil)
  }

  static func permissionDenied(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .forbidden, statusName: "PERMISSION_DENIED", message: message, reason: nil)
  }

  /// A missing or wrong admin token.
  static func unauthenticated(_ message: String) -> GoogleAPIError {
    GoogleAPIError(status: .unauthorized, statusName: "UNAUTHENTICATED", message: message, reason: nil,
                   headers: [.wwwAuthenticate: #"Bearer realm="hybrid-admin""#])
  }

  /// An upload without `Content-Length` (e.g. chunked).
  static let lengthRequired = GoogleAPIError(
    status: .lengthRequired, statusName: "INVALID_ARGUMENT",
    message: "Uploads need a Content-Length header (chunked transfer encoding is not accepted).", reason: nil)

  static func uploadTooLarge(declared: Int64, limit: Int64) -> GoogleAPIError {
    GoogleAPIError(status: .contentTooLarge, statusName: "INVALID_ARGUMENT",
                   message: "The upload has \(declared) bytes; the limit is \(limit) bytes.", reason: nil)
  }

  /// A method the resource does not have; `allow` lists those it has.
  static func methodNotAllowed(allow: String) -> GoogleAPIError {
    GoogleAPIError(status: .methodNotAllowed, statusName: "UNIMPLEMENTED",
                   message: "Method not allowed; this resource answers \(allow).", reason: nil,
                   headers: [.allow: allow])
  }

  /// A `Range` that starts beyond the end of a blob of `size` bytes.
  static func rangeNotSatisfiable(size: Int64) -> GoogleAPIError {
    GoogleAPIError(status: .rangeNotSatisfiable, statusName: "OUT_OF_RANGE",
                   message: "The requested range is outside the \(size) bytes of the blob.", reason: nil,
                   headers: [.contentRange: "bytes */\(size)"])
  }

  /// The API error for a refusal of the registry's store.
  static func from(storeError error: RegistryStoreError) -> GoogleAPIError {
    switch error {
    case .modelNotFound(let name):
      .notFound("Model \(name) not found.")
    case .modelAlreadyExists(let name):
      .alreadyExists("Model \(name) already exists.")
    case .versionNotFound(let model, let version):
      .notFound("Version \(version) of model \(model) not found.")
    case .versionNotPublished(let model, let version):
      .failedPrecondition("Version \(version) of model \(model) is not published; a roll-out can only name published versions.")
    case .unavailable:
      GoogleAPIError(status: .serviceUnavailable, statusName: "UNAVAILABLE",
                     message: "The registry database is unavailable; try again later.", reason: nil,
                     headers: [.retryAfter: "1"])
    case .unsupportedSchemaVersion:
      .internal("The registry database's schema is newer than this server.")
    }
  }
}
