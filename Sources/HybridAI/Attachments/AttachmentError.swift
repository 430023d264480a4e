import Foundation

/// Why an ``Attachment`` could not be made or stored. Nothing is written when one is thrown.
public enum AttachmentError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file or data is empty.
  case empty(name: String)
  /// The file could not be read.
  case unreadable(path: String, reason: String)
  /// A path with `..` components (resolve it first, e.g. with `URL.standardizedFileURL`), or a
  /// URL that is not a local file.
  case unsafePath(String)
  /// The bytes are none of the kinds an attachment may have (``MediaType/all``); `detected`
  /// names what they look like when that is known (`text/html`, for instance).
  case unsupportedContent(name: String, detected: String?)
  /// The bytes are not what the caller said they were.
  case mismatch(name: String, declared: String, detected: String)
  /// The bytes start like `mimeType` but the file is cut short (a truncated download).
  case truncated(name: String, mimeType: String)
  /// Bigger than the session's artifact store takes per item.
  case tooLarge(name: String, size: Int64, limit: Int64)
  /// No artifact with this id in the session's store.
  case unknownArtifact(id: String)
  /// The session's store could not keep it (full, or a write failed).
  case storeFailed(name: String, ArtifactStoreError)
  /// A remote file (``Attachment/init(fileURI:mimeType:)``): only a cloud model that fetches it
  /// can read it; its bytes are not here.
  case remoteFile(String)

  public var description: String {
    switch self {
    case .empty(let name): "the attachment \(name) is empty"
    case .unreadable(let path, let reason): "cannot read the attachment \(path): \(reason)"
    case .unsafePath(let path): "not a plain local file path: \(path) (resolve '..' and use a file URL)"
    case .unsupportedContent(let name, let detected):
      "\(name) is not a supported attachment (\(detected.map { "it looks like \($0); " } ?? "")"
        + "supported: \(MediaType.all.map(\.mimeType).joined(separator: ", ")))"
    case .mismatch(let name, let declared, let detected):
      "\(name) was given as \(declared) but its bytes are \(detected)"
    case .truncated(let name, let mimeType): "\(name) starts like \(mimeType) but is cut short (truncated)"
    case .tooLarge(let name, let size, let limit): "\(name) is \(size) bytes; the limit is \(limit) bytes"
    case .unknownArtifact(let id): "no artifact with id \(id) in the session's store"
    case .storeFailed(let name, let error): "\(name) could not be stored: \(error)"
    case .remoteFile(let uri): "\(uri) is a remote file: only a cloud model that fetches it can read it"
    }
  }
}
