import Foundation
import HybridAI

/// Why getting, downloading or deleting a model failed.
///
/// Cancelling the calling task throws `CancellationError` instead; a cancelled download keeps its
/// partial file and resumes from there next time.
public enum ModelDownloadError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError,
  ReachabilityError {
  /// The name breaks the registry's rules (1–64 of `[A-Za-z0-9_-]`, starting with a letter or
  /// digit). Nothing was read, written or sent.
  case invalidModelName(String)
  /// The registry has no such model, or no version of it is published (`404`); or, for
  /// ``ModelDownloader/deleteDownloadedModel(name:)``, nothing of it is on this device.
  case modelNotFound(name: String)
  /// The registry answered with an error status (after the retries allowed for `429` and `5xx`).
  case serverError(status: Int, message: String)
  /// The registry could not be reached: DNS failure, refused or reset connection, connect
  /// timeout, no route. `detail` describes the underlying error.
  case offline(OfflineReason, detail: String)
  /// Any other transport failure before an answer (TLS, read timeout, …).
  case transportFailure(String)
  /// The conditions forbid cellular and metered networks, and the server is reached through
  /// `interface`, which is one.
  case cellularNotAllowed(interface: String)
  /// The file does not fit: `required` more bytes are needed and `available` are free (as the
  /// disk-space probe said), or writing failed with `ENOSPC`, `EFBIG` or `EDQUOT`.
  case notEnoughSpace(required: Int64, available: Int64)
  /// The downloaded bytes do not have the SHA-256 the registry announced; they were discarded and
  /// the previous version, if any, is still in place.
  case hashMismatch(expected: String, actual: String)
  /// The server sent or announced a different number of bytes than the registry said the file has.
  case sizeMismatch(expected: Int64, actual: Int64)
  /// The server's answer did not follow the protocol (`docs/model-delivery.md`).
  case invalidServerResponse(reason: String)
  /// The signed download URL was refused (`403`, expired or invalid, or `404`) even after the
  /// model's information was fetched again.
  case downloadURLRejected(status: Int, message: String)
  /// Writing to `path` failed with `errno` (other than running out of space).
  case writeFailed(path: String, errno: Int32)
  /// Reading `path` failed with `errno`.
  case readFailed(path: String, errno: Int32)
  /// The download was interrupted `attempts` times in a row without progress; `lastError` says how
  /// it last failed. The partial file is kept, so a later attempt resumes.
  case tooManyInterruptions(attempts: Int, lastError: String)
  /// The model was deleted from this device while it was being downloaded.
  case deletedDuringDownload(name: String)

  public var description: String {
    switch self {
    case .invalidModelName(let name):
      "invalid model name \(String(reflecting: name)): use 1–64 characters of A–Z, a–z, 0–9, _ and -, starting with a letter or digit"
    case .modelNotFound(let name):
      "model \(name) not found (it does not exist or has no published version)"
    case .serverError(let status, let message):
      "the model registry answered HTTP \(status)\(message.isEmpty ? "" : ": \(message)")"
    case .offline(let reason, let detail):
      "the model registry is unreachable (\(reason)): \(detail)"
    case .transportFailure(let detail):
      "the request to the model registry failed: \(detail)"
    case .cellularNotAllowed(let interface):
      "the server is reached through \(interface), a cellular or metered network, and the download conditions do not allow one"
    case .notEnoughSpace(let required, let available):
      "not enough disk space for the model: \(required) bytes needed, \(available) available"
    case .hashMismatch(let expected, let actual):
      "the downloaded file is corrupt: SHA-256 \(actual), expected \(expected)"
    case .sizeMismatch(let expected, let actual):
      "the download has the wrong size: \(actual) bytes, expected \(expected)"
    case .invalidServerResponse(let reason):
      "invalid answer from the model registry: \(reason)"
    case .downloadURLRejected(let status, let message):
      "the model's download URL was refused (HTTP \(status))\(message.isEmpty ? "" : ": \(message)")"
    case .writeFailed(let path, let code):
      "writing \(path) failed: \(String(cString: strerror(code))) (errno \(code))"
    case .readFailed(let path, let code):
      "reading \(path) failed: \(String(cString: strerror(code))) (errno \(code))"
    case .tooManyInterruptions(let attempts, let lastError):
      "the download was interrupted \(attempts) times in a row without progress; last: \(lastError)"
    case .deletedDuringDownload(let name):
      "model \(name) was deleted while it was being downloaded"
    }
  }

  public var errorDescription: String? { description }

  /// Why the registry could not be reached, for ``offline(_:detail:)``; `nil` otherwise.
  public var offlineReason: OfflineReason? {
    if case .offline(let reason, _) = self { return reason }
    return nil
  }
}
