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
/// to restore the hash) and discards it otherwise. Bytes are written at ``offset``; a failed
/// write truncates the file back, so the file and the hash always agree.
final class PartialDownload {
  let path: String
  let infoPath: String
  let info: PartInfo
  /// Bytes in the part (and in the hash).
  private(set) var offset: Int64
  private var hasher: SHA256
  private var fd: Int32
  /// Where the part stood when the kernel was last asked to start writing it back.
  private var writebackRequestedAt: Int64 = 0

  /// How many written bytes may wait in the page cache before writeback is started: keeps the
  /// final `fsync` short (a 1 GiB part would otherwise flush everything at the end, ~0.5 s here)
  /// and the page cache of a large download small.
  static let writebackInterval: Int64 = 16 << 20

  private init(path: String, infoPath: String, info: PartInfo, fd: Int32, offset: Int64, hasher: SHA256) {
    self.path = path
    self.infoPath = infoPath
    self.info = info
    self.fd = fd
    self.offset = offset
    self.hasher = hasher
  }

  deinit { if fd >= 0 { Glibc.close(fd) } }

  /// Opens the part for `info` in `store`'s directory for `name` (which must exist), resuming an
  /// existing part of the same blob.
  static func open(in store: ModelStore, name: String, for info: PartInfo,
                   logger: Logger) throws(POSIXFile.Failure) -> PartialDownload {
    let path = store.partPath(for: name)
    let infoPath = store.partInfoPath(for: name)
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

  private static func rehash(_ fd: Int32, bytes: Int64, path: String) throws(POSIXFile.Failure) -> SHA256 {
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

  /// Appends `buffer`'s readable bytes. On failure the file is truncated back to ``offset``.
  ///
  /// The bytes are hashed in a child task while they are written, so SHA-256 and `pwrite` run on
  /// two cores at once (a 1 GiB download spends about as long in each); the hash is kept only if
  /// the write succeeded, so the file and the hash always agree.
  func append(_ buffer: ByteBuffer) async throws(POSIXFile.Failure) {
    guard buffer.readableBytes > 0 else { return }
    let hashedBefore = hasher
    async let hashedAfter = Self.hash(buffer, continuing: hashedBefore)
    let result: Result<Void, POSIXFile.Failure> = buffer.withUnsafeReadableBytes { bytes in
      do throws(POSIXFile.Failure) {
        try POSIXFile.write(fd, bytes, at: offset, path: path)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    let updated = await hashedAfter
    switch result {
    case .success:
      hasher = updated
      offset += Int64(buffer.readableBytes)
      if offset - writebackRequestedAt >= Self.writebackInterval { requestWriteback() }
    case .failure(let failure):
      _ = ftruncate(fd, off_t(offset))
      // Keep as much of the chunk as the disk takes (a file-size limit or a full disk can stop
      // it part way), in slices, so that a resume starts close to where the space ran out.
      guard buffer.readableBytes > Self.failureSliceBytes else { throw failure }
      var rest = buffer
      while let slice = rest.readSlice(length: min(Self.failureSliceBytes, rest.readableBytes)) {
        try await append(slice)
      }
      throw failure
    }
  }

  /// After a chunk failed to be written, it is retried in slices of this size.
  static let failureSliceBytes = 64 << 10

  private static func hash(_ buffer: ByteBuffer, continuing hasher: SHA256) async -> SHA256 {
    var hasher = hasher
    buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
    return hasher
  }

  /// Asks the kernel to start writing the part back now and to drop the pages already written
  /// (Linux's `POSIX_FADV_DONTNEED` starts asynchronous writeback of dirty pages in the range and
  /// evicts clean ones); advisory, so a failure changes nothing.
  private func requestWriteback() {
    _ = posix_fadvise(fd, 0, off_t(offset), POSIX_FADV_DONTNEED)
    writebackRequestedAt = offset
  }

  /// Empties the part to start again from byte 0.
  func restart() throws(POSIXFile.Failure) {
    try POSIXFile.truncate(fd, to: 0, path: path)
    offset = 0
    writebackRequestedAt = 0
    hasher = SHA256()
  }

  /// The SHA-256 (lowercase hex) of the bytes written.
  func digest() -> String {
    hasher.finalize().map { String(format: "%02x", $0) }.joined()
  }

  /// Flushes the part to disk and closes it (before it is renamed into place).
  func syncAndClose() throws(POSIXFile.Failure) {
    try POSIXFile.sync(fd, path: path)
    Glibc.close(fd)
    fd = -1
  }

  /// Closes the part, keeping it for a later resume.
  func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }

  /// Closes and deletes the part and its sidecar.
  func discard() {
    close()
    POSIXFile.unlinkIfPresent(path)
    POSIXFile.unlinkIfPresent(infoPath)
  }
}
