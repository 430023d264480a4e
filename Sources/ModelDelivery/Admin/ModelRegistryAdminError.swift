import Foundation
import HybridAI
import HybridAIWire

/// Why a registry admin request failed; HTTP errors are read from Google's error envelope.
public enum ModelRegistryAdminError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
  /// `400 INVALID_ARGUMENT` (or another 400): a bad name, version, roll-out or body.
  case invalidArgument(String)
  /// `401 UNAUTHENTICATED`: the admin token is missing or wrong.
  case unauthenticated(String)
  /// `403 PERMISSION_DENIED`: the admin API is off (the server has no admin token).
  case permissionDenied(String)
  /// `404 NOT_FOUND`: no such model or version.
  case notFound(String)
  /// `409 ALREADY_EXISTS`: a model of that name exists.
  case alreadyExists(String)
  /// `413`: the upload is over the server's limit.
  case payloadTooLarge(String)
  /// Any other error status; `code` is the envelope's status name (`INTERNAL`, …).
  case server(status: Int, code: String?, message: String)
  /// The registry could not be reached.
  case offline(OfflineReason, detail: String)
  /// Any other transport failure.
  case transportFailure(String)
  /// The answer could not be understood.
  case invalidResponse(String)
  /// The name breaks the registry's rules; nothing was sent.
  case invalidModelName(String)
  /// The file to upload could not be read.
  case fileUnreadable(path: String, errno: Int32)

  /// The error for an HTTP error answer.
  static func http(status: Int, body: Data) -> ModelRegistryAdminError {
    let envelope = GoogleErrorEnvelope.body(from: body)
    let message = GoogleErrorEnvelope.message(from: body)
    switch status {
    case 400: return .invalidArgument(message)
    case 401: return .unauthenticated(message)
    case 403: return .permissionDenied(message)
    case 404: return .notFound(message)
    case 409: return .alreadyExists(message)
    case 413: return .payloadTooLarge(message)
    default: return .server(status: status, code: envelope?.status, message: message)
    }
  }

  public var description: String {
    switch self {
    case .invalidArgument(let message): "invalid argument: \(message)"
    case .unauthenticated(let message): "unauthenticated (check the admin token): \(message)"
    case .permissionDenied(let message): "permission denied: \(message)"
    case .notFound(let message): "not found: \(message)"
    case .alreadyExists(let message): "already exists: \(message)"
    case .payloadTooLarge(let message): "the upload is too large: \(message)"
    case .server(let status, let code, let message): "the registry answered HTTP \(status)\(code.map { " \($0)" } ?? ""): \(message)"
    case .offline(let reason, let detail): "the registry is unreachable (\(reason)): \(detail)"
    case .transportFailure(let detail): "the request to the registry failed: \(detail)"
    case .invalidResponse(let reason): "invalid answer from the registry: \(reason)"
    case .invalidModelName(let name): "invalid model name \(String(reflecting: name))"
    case .fileUnreadable(let path, let code): "cannot read \(path): \(String(cString: strerror(code)))"
    }
  }

  public var errorDescription: String? { description }
}
