/// Why an ``ArtifactStore`` could not do what was asked. Whatever the error, the store leaves no
/// partly written file behind.
public enum ArtifactStoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The artifact is bigger than ``ArtifactStore/Limits/maxArtifactBytes``. `size` is its size,
  /// or for a file source how much had been read when the limit was passed.
  case artifactTooLarge(size: Int64, limit: Int64)
  /// Storing `needed` more bytes would take the store past
  /// ``ArtifactStore/Limits/maxStoreBytes``; `available` bytes are left.
  case storeFull(needed: Int64, available: Int64)
  /// A source file, a stored file or the store's index could not be read.
  case unreadableSource(path: String, reason: String)
  /// A file or directory in the store could not be written, renamed or removed.
  case writeFailed(path: String, reason: String)
  /// No artifact with this identifier is in the store.
  case unknownArtifact(id: String)

  /// A sentence saying what went wrong.
  public var description: String {
    switch self {
    case .artifactTooLarge(let size, let limit):
      "artifact too large: \(size) bytes (the limit is \(limit) bytes per artifact)"
    case .storeFull(let needed, let available):
      "artifact store full: \(needed) bytes needed, \(available) bytes available"
    case .unreadableSource(let path, let reason):
      "cannot read \(path): \(reason)"
    case .writeFailed(let path, let reason):
      "cannot write \(path): \(reason)"
    case .unknownArtifact(let id):
      "no artifact with id \(id) in the store"
    }
  }
}
