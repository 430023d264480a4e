import Crypto
import Foundation
import HybridAIWire
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content-addressed model files: `DIR/blobs/sha256/<first two hex>/<sha256>`.
///
/// An upload streams into a temporary file under `DIR/uploads/`, hashed on the way in, and is
/// moved into place only when complete; a failed one leaves nothing behind. Blobs are immutable,
/// so one that already exists is reused.
struct BlobStore: Sendable {
  /// `DIR/blobs/sha256`.
  let blobsDirectory: URL
  /// `DIR/uploads`: uploads in progress.
  let uploadsDirectory: URL
  private let logger: Logger

  /// Creates the directories under `dataDirectory` when missing and deletes uploads that an earlier
  /// run left unfinished.
  init(dataDirectory: URL, logger: Logger) throws {
    blobsDirectory = dataDirectory.appending(path: "blobs/sha256", directoryHint: .isDirectory)
    uploadsDirectory = dataDirectory.appending(path: "uploads", directoryHint: .isDirectory)
    self.logger = logger
    try FileManager.default.createDirectory(at: blobsDirectory, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: uploadsDirectory, withIntermediateDirectories: true)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: uploadsDirectory.path)
    for name in leftovers { try? FileManager.default.removeItem(at: uploadsDirectory.appending(path: name)) }
    if !leftovers.isEmpty {
      logger.notice("removed unfinished uploads", metadata: ["count": "\(leftovers.count)", "path": "\(uploadsDirectory.path)"])
    }
  }

  /// Where the blob `sha256` lives (whether or not it exists).
  func path(ofBlob sha256: String) -> String {
    blobsDirectory.appending(path: "\(sha256.prefix(2))/\(sha256)", directoryHint: .notDirectory).path
  }

  /// The size of the blob `sha256`, or `nil` when there is no such file.
  func size(ofBlob sha256: String) -> Int64? {
    var status = stat()
    guard stat(path(ofBlob: sha256), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(status.st_size)
  }

  /// Streams `body` into a temporary file while hashing it, then flushes it to disk.
  ///
  /// Throws ``UploadFailure`` when the body is longer or shorter than `declaredLength`; the body's
  /// own errors (a dropped connection) pass through. Either way the temporary file is gone.
  func receive<Body: AsyncSequence>(_ body: Body, declaredLength: Int64) async throws -> StagedBlob
  where Body.Element == ByteBuffer {
    let temporaryPath = uploadsDirectory.appending(path: "\(UUID().uuidString).part").path
    let file = try WritableFile(creatingAt: temporaryPath)
    do {
      var hasher = SHA256()
      var received: Int64 = 0
      var header: [UInt8] = []
      for try await chunk in body {
        received += Int64(chunk.readableBytes)
        guard received <= declaredLength else { throw UploadFailure.longerThanDeclared(declaredLength: declaredLength) }
        if header.count < ModelFormat.sniffedByteCount {
          header += chunk.readableBytesView.prefix(ModelFormat.sniffedByteCount - header.count)
        }
        try chunk.withUnsafeReadableBytes { bytes in
          hasher.update(bufferPointer: bytes)
          try file.append(bytes)
        }
      }
      guard received == declaredLength else {
        throw UploadFailure.shorterThanDeclared(declaredLength: declaredLength, received: received)
      }
      try file.synchronize()
      try file.closeFile()
      let sha256 = Hex.encode(hasher.finalize())
      return StagedBlob(temporaryPath: temporaryPath, sha256: sha256, sizeBytes: received, format: .sniff(header))
    } catch {
      try? file.closeFile()
      unlink(temporaryPath)
      throw error
    }
  }

  /// Moves a staged upload into place, or drops it when an identical blob is already there.
  /// Returns whether the blob is new.
  @discardableResult
  func store(_ staged: StagedBlob) throws -> Bool {
    let destination = path(ofBlob: staged.sha256)
    if size(ofBlob: staged.sha256) == staged.sizeBytes {
      discard(staged)
      return false
    }
    let directory = (destination as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      guard rename(staged.temporaryPath, destination) == 0 else { throw BlobStoreError(operation: "rename", path: destination) }
      try synchronizeDirectory(directory)
    } catch {
      discard(staged)
      throw error
    }
    logger.info("blob stored", metadata: ["sha256": "\(staged.sha256)", "sizeBytes": "\(staged.sizeBytes)"])
    return true
  }

  /// Deletes a staged upload that will not be stored.
  func discard(_ staged: StagedBlob) {
    unlink(staged.temporaryPath)
  }

  /// Deletes the blob `sha256` (and its directory once empty). A missing blob is no error.
  func removeBlob(_ sha256: String) throws {
    let blobPath = path(ofBlob: sha256)
    guard unlink(blobPath) == 0 || errno == ENOENT else { throw BlobStoreError(operation: "unlink", path: blobPath) }
    rmdir((blobPath as NSString).deletingLastPathComponent)   // fails harmlessly while other blobs share it
    logger.info("blob removed", metadata: ["sha256": "\(sha256)"])
  }

  private func synchronizeDirectory(_ path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw BlobStoreError(operation: "open", path: path) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw BlobStoreError(operation: "fsync", path: path) }
  }
}

/// An upload, complete and flushed to disk in `uploads/`, not yet in the blob store.
struct StagedBlob: Sendable {
  let temporaryPath: String
  let sha256: String
  let sizeBytes: Int64
  let format: ModelFormat
}

/// Why an upload's body was refused.
enum UploadFailure: Error, Equatable {
  case longerThanDeclared(declaredLength: Int64)
  case shorterThanDeclared(declaredLength: Int64, received: Int64)
}

/// A file system call that failed, with `errno`'s description.
struct BlobStoreError: Error, CustomStringConvertible {
  let operation: String
  let path: String
  let code: Int32

  init(operation: String, path: String, code: Int32 = errno) {
    self.operation = operation
    self.path = path
    self.code = code
  }

  var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// A newly created file written with plain POSIX calls (so that it can be fsync'ed).
private final class WritableFile {
  private var descriptor: Int32
  private let path: String

  init(creatingAt path: String) throws {
    descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    self.path = path
    guard descriptor >= 0 else { throw BlobStoreError(operation: "create", path: path) }
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  func append(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        throw BlobStoreError(operation: "write", path: path)
      }
      offset += written
    }
  }

  func synchronize() throws {
    guard fsync(descriptor) == 0 else { throw BlobStoreError(operation: "fsync", path: path) }
  }

  func closeFile() throws {
    guard descriptor >= 0 else { return }
    let result = close(descriptor)
    descriptor = -1
    guard result == 0 else { throw BlobStoreError(operation: "close", path: path) }
  }
}
