import HybridAI
import HybridAIPersistence
import HybridAIServing

/// Why a chat request failed; each answers with a status and Google's error envelope.
public enum ChatAppError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No session with this id (never made, deleted — perhaps in another tab — or not a valid id).
  case sessionNotFound(String)
  /// No file with this id in the session.
  case fileNotFound(String)
  /// The message has no text and no attachments.
  case emptyMessage
  /// The session is already answering a message.
  case busy(String)
  /// A mode whose model `hybrid serve` was not given (no cloud model configured, say).
  case modeUnavailable(InferenceMode, available: [InferenceMode])
  /// A request body that is not what the endpoint takes.
  case invalidRequest(String)

  public var description: String {
    switch self {
    case .sessionNotFound(let id): "No chat session \(id)."
    case .fileNotFound(let id): "No file \(id) in the chat session."
    case .emptyMessage: "The message is empty: write something or attach a file."
    case .busy(let id): "Session \(id) is still answering; stop it or wait."
    case .modeUnavailable(let mode, let available):
      "The mode \(mode.rawValue) needs a model this server does not have (available: "
        + (available.isEmpty ? "none" : available.map(\.rawValue).joined(separator: ", ")) + ")."
    case .invalidRequest(let detail): "Invalid request: \(detail)"
    }
  }

  /// The HTTP error it answers with.
  var apiError: GoogleAPIError {
    switch self {
    case .sessionNotFound, .fileNotFound:
      GoogleAPIError(status: .notFound, statusName: "NOT_FOUND", message: description, reason: nil)
    case .busy:
      GoogleAPIError(status: .conflict, statusName: "ABORTED", message: description, reason: nil)
    case .emptyMessage, .modeUnavailable, .invalidRequest:
      .invalidArgument(description)
    }
  }
}
