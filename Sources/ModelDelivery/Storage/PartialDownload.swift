import Crypto
import Foundation
import Logging
import NIOCore

/// Which blob a part file belongs to (`download.part.json`), so that a part survives process
/// restarts and is resumed only for the same blob.
struct PartInfo: Codable, Sendable, Hashable {
  var sha256: String
  var sizeBytes: Int64
  var version: String
}

/// The file a download writes (`download.part`), with the SHA-256 of the bytes in it so far.
///
/// Opening it keeps an existing part when its sidecar names the same blob (re-reading the bytes
/// to restore the hash) and discards it otherwise. New bytes are appended through its
/// ``writer`` (hashed and written off the receiving thread); ``finishWrites()`` waits for them. A
/// failed write truncates the file back to its last good byte and ends this part's use: the
/// download throws, and the next open re-hashes what is on disk.
final class PartialDownload {
  let path: String
  /// The sidecar naming the blob, when the path alone does not.
  let infoPath: String?
  let info: PartInfo
  /// Appends the received bytes and hashes them.
  let writer: PartWriter

  private init(path: String, infoPath: String?, info: PartInfo, fd: Int32, offset: Int64, hasher: SHA256) {
    self.path = path
    self.infoPath = infoPath
    self.info = info
    self.writer = PartWriter(fd: fd, path: path, offset: offset, hasher: hasher)
  }

  /// Bytes in the part once the queued writes are done (and in the hash); after a failed write,
  /// the bytes the file kept.
  var offset: Int64 { writer.acceptedEnd }

  deinit { writer.close() }

  /// Opens the part for `info` in `store`'s directory for `name` (which must exist), resuming an
  /// existing part of the same blob.
  static func open(in store: ModelStore, name: String, for info: PartInfo,
                   logger: Logger) throws(POSIXFile.Failure) -> PartialDownload {
    try open(at: store.partPath(for: name), infoPath: store.partInfoPath(for: name), name: name, for: info, logger: logger)
  }

  /// Opens the part at `path` for `info`, resuming an existing part of the same blob: the one its
  /// sidecar at `infoPath` names, or — without a sidecar, for a path that names the blob itself
  /// (Hugging Face's `blobs/<sha256>.incomplete`) — whatever is there.
  static func open(at path: String, infoPath: String?, name: String, for info: PartInfo,
                   logger: Logger) throws(POSIXFile.Failure) -> PartialDownload {
    if let infoPath { try discardUnlessSameBlob(path: path, infoPath: infoPath, name: name, info: info, logger: logger) }
    let fd = try POSIXFile.open(path, O_RDWR | O_CREAT)
    do throws(POSIXFile.Failure) {
      var size = try POSIXFile.size(fd, path: path)
      if size > info.sizeBytes {
        logger.warning("the partial download is longer than the file; starting over", metadata: [
          "model": "\(name)", "partBytes": "\(size)", "sizeBytes": "\(info.sizeBytes)",
        ])
        try POSIXFile.truncate(fd, to: 0, path: path)
        size = 0
      }
      let hasher = try rehash(fd, bytes: size, path: path)
      if size > 0 {
        logger.info("resuming a partial download", metadata: [
          "model": "\(name)", "version": "\(info.version)", "bytes": "\(size)", "sizeBytes": "\(info.sizeBytes)",
        ])
      }
      return PartialDownload(path: path, infoPath: infoPath, info: info, fd: fd, offset: size, hasher: hasher)
    } catch {
      Glibc.close(fd)
      throw error
    }
  }

  /// Deletes the part at `path` unless its sidecar names the blob of `info`, and writes the sidecar.
  private static func discardUnlessSameBlob(path: String, infoPath: String, name: String, info: PartInfo,
                                            logger: Logger) throws(POSIXFile.Failure) {
    let existing = FileManager.default.contents(atPath: infoPath).flatMap { try? JSONDecoder().decode(PartInfo.self, from: $0) }
    if existing?.sha256 != info.sha256 || existing?.sizeBytes != info.sizeBytes {
      if existing != nil || POSIXFile.regularFileSize(atPath: path) != nil {
        logger.info("discarding a partial download of another version", metadata: [
          "model": "\(name)", "partSHA256": "\(existing?.sha256 ?? "unknown")", "sha256": "\(info.sha256)",
        ])
      }
      POSIXFile.unlinkIfPresent(path)
      let data = (try? JSONEncoder().encode(info)) ?? Data()
      try POSIXFile.writeAtomically(data, to: infoPath)
    }
  }

  /// The SHA-256 state after the first `bytes` bytes of the open file `fd`.
  static func rehash(_ fd: Int32, bytes: Int64, path: String) throws(POSIXFile.Failure) -> SHA256 {
    var hasher = SHA256()
    guard bytes > 0 else { return hasher }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    var position: Int64 = 0
    while position < bytes {
      let wanted = Int(min(Int64(buffer.count), bytes - position))
      let count = try POSIXFile.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]),
                                     at: position, path: path)
      guard count == wanted else { throw POSIXFile.Failure(operation: "read", path: path, code: EIO) }
      hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      position += Int64(count)
    }
    return hasher
  }

  /// Waits until every queued byte is hashed and written; throws the first failed write
  /// (``offset`` is then what the file kept).
  func finishWrites() async throws(POSIXFile.Failure) {
    try await writer.drain()
  }

  /// Empties the part to start again from byte 0, after ``finishWrites()``.
  func restart() throws(POSIXFile.Failure) {
    try writer.reset()
  }

  /// The SHA-256 (lowercase hex) of the bytes written; call after ``finishWrites()``.
  func digest() -> String {
    writer.currentHash().finalize().map { String(format: "%02x", $0) }.joined()
  }

  /// Flushes the part to disk and closes it (before it is renamed into place).
  /// Call after ``finishWrites()``.
  func syncAndClose() throws(POSIXFile.Failure) {
    try writer.sync()
    writer.close()
  }

  /// Closes the part (after the queued writes), keeping it for a later resume.
  func close() {
    writer.close()
  }

  /// Closes and deletes the part and its sidecar.
  func discard() {
    close()
    POSIXFile.unlinkIfPresent(path)
    if let infoPath { POSIXFile.unlinkIfPresent(infoPath) }
  }
}
