import Foundation

/// Immutable byte blobs addressed by their content (the SHA-256 of the bytes): the one place
/// where HybridAI keeps bytes it may hold several times — a session's artifacts, the registry's
/// model files, the downloader's installed models. ``FileSystemBlobStore`` keeps them in a
/// directory; another backend (an object store, PostgreSQL large objects) plugs in here.
///
/// Writers stage bytes in a file the store hands out (``makeStagingFile()``), hash them while
/// writing, and hand the finished file back with its digest (``adopt(_:digest:size:)``). A blob
/// appears whole or not at all, and storing bytes the store has already is free.
///
/// ```swift
/// let blobs = try FileSystemBlobStore(directory: dataDirectory.appendingPathComponent("blobs"))
/// let staging = try blobs.makeStagingFile()
/// try bytes.write(to: staging)
/// let outcome = try blobs.adopt(staging, digest: digest, size: Int64(bytes.count))
/// let url = blobs.fileURL(of: digest)   // read it (or hard-link it) from here
/// ```
public protocol BlobStore: Sendable {
  /// A new, empty file on the store's file system in which to write a blob's bytes; it is not
  /// visible as a blob until ``adopt(_:digest:size:)``. Remove it with ``discardStagingFile(_:)`` to give up.
  func makeStagingFile() throws(BlobStoreError) -> URL

  /// Makes the finished staging file `file` (flushed to disk by its writer) the blob `digest`,
  /// or drops it when the store holds that blob already. Either way `file` is gone afterwards.
  @discardableResult
  func adopt(_ file: URL, digest: BlobDigest, size: Int64) throws(BlobStoreError) -> BlobAdoption

  /// Removes a staging file that will not become a blob.
  func discardStagingFile(_ file: URL)

  /// The size of blob `digest`, or `nil` when the store does not hold it.
  func size(of digest: BlobDigest) -> Int64?

  /// Where blob `digest` can be read as a local file (whether or not it exists). Blob files are
  /// read-only; link or copy them, never write to them.
  func fileURL(of digest: BlobDigest) -> URL

  /// Removes blob `digest`; removing a blob that is not there is no error.
  func remove(_ digest: BlobDigest) throws(BlobStoreError)

  /// The digests of every blob held.
  func allDigests() -> [BlobDigest]
}

/// What ``BlobStore/adopt(_:digest:size:)`` did.
public enum BlobAdoption: Sendable, Equatable {
  /// The blob is new.
  case stored
  /// The store held these bytes already; the staging file was dropped.
  case alreadyPresent
}

/// Why a ``BlobStore`` operation failed: the operation, the path and the system's reason.
public struct BlobStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What was being done: `create`, `rename`, `unlink`, `fsync`, ….
  public var operation: String
  /// The file or directory concerned.
  public var path: String
  /// The system's reason (`strerror`).
  public var reason: String
  /// The `errno` value, when a system call failed (so callers can tell a full disk, `ENOSPC`).
  public var code: Int32?

  public init(operation: String, path: String, reason: String, code: Int32? = nil) {
    self.operation = operation
    self.path = path
    self.reason = reason
    self.code = code
  }

  /// The error for `errno` after a failed system call.
  public init(operation: String, path: String, code: Int32 = errno) {
    self.init(operation: operation, path: path, reason: String(cString: strerror(code)), code: code)
  }

  public var description: String { "blob store: \(operation) \(path) failed: \(reason)" }
}

extension BlobStore {
  /// Removes every blob not in `used` (left by a crash between adopting a blob and recording who
  /// uses it). Returns how many were removed.
  @discardableResult
  public func removeBlobs(notIn used: Set<BlobDigest>) -> Int {
    var removed = 0
    for digest in allDigests() where !used.contains(digest) {
      if (try? remove(digest)) != nil { removed += 1 }
    }
    return removed
  }
}
