import Crypto
import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIWire
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The registry's model files: content-addressed blobs in a ``FileSystemBlobStore``,
/// `DIR/blobs/sha256/<first two hex>/<sha256>`.
///
/// An upload streams into a staging file of the store, hashed on the way in, and is adopted as a
/// blob only when complete; a failed one leaves nothing behind. Blobs are immutable, so one that
/// already exists is reused.
struct ModelFiles: Sendable {
  /// Where the blobs are.
  let blobs: FileSystemBlobStore
  private let logger: Logger

  /// Opens the store under `dataDirectory` (creating it when missing; staging files an earlier run
  /// left unfinished are deleted).
  init(dataDirectory: URL, logger: Logger) throws {
    blobs = try FileSystemBlobStore(directory: dataDirectory.appending(path: "blobs/sha256", directoryHint: .isDirectory),
                                    layout: .sharded)
    self.logger = logger
    // Registries before the shared blob store staged uploads in DIR/uploads.
    try? FileManager.default.removeItem(at: dataDirectory.appending(path: "uploads", directoryHint: .isDirectory))
  }

  /// Where the blob `sha256` lives (whether or not it exists); `nil` for a malformed digest.
  func path(ofBlob sha256: String) -> String? {
    BlobDigest(hex: sha256).map { blobs.fileURL(of: $0).path }
  }

  /// The size of the blob `sha256`, or `nil` when there is no such blob.
  func size(ofBlob sha256: String) -> Int64? {
    BlobDigest(hex: sha256).flatMap { blobs.size(of: $0) }
  }

  /// Streams `body` into a temporary file while hashing it, then flushes it to disk.
  ///
  /// Throws ``UploadFailure`` when the body is longer or shorter than `declaredLength`; the body's
  /// own errors (a dropped connection) pass through. Either way the temporary file is gone.
  func receive<Body: AsyncSequence>(_ body: Body, declaredLength: Int64) async throws -> StagedBlob
  where Body.Element == ByteBuffer {
    let staging = try blobs.makeStagingFile()
    let temporaryPath = staging.path
    let file: WritableFile
    do {
      file = try WritableFile(openingAt: temporaryPath)
    } catch {
      blobs.discardStagingFile(staging)
      throw error
    }
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
      return StagedBlob(file: staging, sha256: sha256, sizeBytes: received, format: .sniff(header))
    } catch {
      try? file.closeFile()
      blobs.discardStagingFile(staging)
      throw error
    }
  }

  /// Adopts a staged upload as a blob, or drops it when an identical blob is already there.
  /// Returns whether the blob is new.
  @discardableResult
  func store(_ staged: StagedBlob) throws -> Bool {
    guard let digest = BlobDigest(hex: staged.sha256) else {
      discard(staged)
      throw BlobStoreError(operation: "adopt", path: staged.file.path, reason: "malformed digest \(staged.sha256)")
    }
    let isNew = try blobs.adopt(staged.file, digest: digest, size: staged.sizeBytes) == .stored
    if isNew { logger.info("blob stored", metadata: ["sha256": "\(staged.sha256)", "sizeBytes": "\(staged.sizeBytes)"]) }
    return isNew
  }

  /// Deletes a staged upload that will not be stored.
  func discard(_ staged: StagedBlob) {
    blobs.discardStagingFile(staged.file)
  }

  /// Deletes the blob `sha256`. A missing blob is no error.
  func removeBlob(_ sha256: String) throws {
    guard let digest = BlobDigest(hex: sha256) else { return }
    try blobs.remove(digest)
    logger.info("blob removed", metadata: ["sha256": "\(sha256)"])
  }
}

/// An upload, complete and flushed to disk in a staging file, not yet a blob.
struct StagedBlob: Sendable {
  let file: URL
  let sha256: String
  let sizeBytes: Int64
  let format: ModelFormat
}

/// Why an upload's body was refused.
enum UploadFailure: Error, Equatable {
  case longerThanDeclared(declaredLength: Int64)
  case shorterThanDeclared(declaredLength: Int64, received: Int64)
}

/// A staging file written with plain POSIX calls (so that it can be fsync'ed).
private final class WritableFile {
  private var descriptor: Int32
  private let path: String

  init(openingAt path: String) throws {
    descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    self.path = path
    guard descriptor >= 0 else { throw BlobStoreError(operation: "open", path: path) }
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
