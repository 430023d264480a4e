/// What can go wrong when saving, listing, loading or deleting sessions in a ``SessionStore``.
public enum SessionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The session identifier is not 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`.
  case invalidID(String)
  /// No session with this identifier is stored.
  case notFound(String)
  /// The stored transcript of the session cannot be read (or a transcript cannot be encoded).
  case corruptTranscript(id: String, reason: String)
  /// The SQLite database failed: it cannot be opened, migrated, read or written.
  case database(reason: String)
  /// The shared artifact store cannot be opened.
  case artifactStore(reason: String)

  public var description: String {
    switch self {
    case .invalidID(let id):
      "invalid session id \(String(reflecting: id)): use 1 to 64 characters from A-Z, a-z, 0-9, _ and -"
    case .notFound(let id): "no session \(id)"
    case .corruptTranscript(let id, let reason): "the transcript of session \(id) cannot be read: \(reason)"
    case .database(let reason): "session database error: \(reason)"
    case .artifactStore(let reason): "session artifact store error: \(reason)"
    }
  }
}
