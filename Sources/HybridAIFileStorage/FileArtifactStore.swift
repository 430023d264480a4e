import Foundation
import HybridAI
import Synchronization

/// Keeps artifacts as files in a directory, addressed by their content: the bytes live once in a
/// ``FileSystemBlobStore`` at `<directory>/blobs/<sha256>` (read-only), and each artifact is a name for them,
/// `<directory>/<id>/<sanitised name>` (a hard link, or a copy where the file system has none). An
/// index (`index.json`) lets a store opened later on the same directory find them again. Identical
/// bytes stored as several artifacts take their space once; removing the last artifact of a
/// content removes its blob.
///
/// Every write is atomic: the bytes go to a temporary file in the directory, are flushed to disk,
/// and the file is renamed into place; on any failure — an unreadable source, a full disk, a
/// size limit passed while a file is being copied — the temporary file is removed and nothing is
/// left behind. Sizes are limited per artifact and for the whole store (``Limits``; the store's
/// total counts each content once).
///
/// The store is safe to use from many tasks at once. One directory should be used by one store
/// (in one process) at a time: opening a store removes temporary files left by a crash.
///
/// ```swift
/// let store = try FileArtifactStore(directory: sessionDirectory.appendingPathComponent("artifacts"))
/// let reference = try store.store(Artifact(data: wav, mimeType: "audio/wav", name: "speech.wav"))
/// print(reference.fileURL!, reference.modelDescription)
/// ```
public final class FileArtifactStore: ArtifactStore {
  /// The size limits of a store (``ArtifactStoreLimits``).
  public typealias Limits = ArtifactStoreLimits

  /// The directory holding the artifacts and the index.
  public let directory: URL
  /// The size limits.
  public let limits: Limits

  private let blobs: FileSystemBlobStore
  private let state: Mutex<State>

  /// The index file's name inside ``directory``.
  static let indexFileName = "index.json"
  /// The prefix of temporary files inside ``directory``.
  static let temporaryPrefix = ".tmp-"
  /// The folder of content blobs inside ``directory``.
  static let blobsFolderName = "blobs"
  private static let copyChunkBytes = 1 << 20

  /// One stored artifact, as the index records it.
  private struct Entry: Codable, Sendable {
    var id: String
    var name: String
    var mimeType: String
    var size: Int64
    var storedAt: Date
    /// The order of storing, which sorts entries (dates may tie or be coarse).
    var sequence: Int
    /// The SHA-256 of the bytes (lowercase hex): the blob's name. Empty in a version 1 index,
    /// whose files are moved under blobs when the store opens.
    var sha256: String

    init(id: String, name: String, mimeType: String, size: Int64, storedAt: Date, sequence: Int, sha256: String) {
      (self.id, self.name, self.mimeType, self.size) = (id, name, mimeType, size)
      (self.storedAt, self.sequence, self.sha256) = (storedAt, sequence, sha256)
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
                mimeType: try container.decode(String.self, forKey: .mimeType), size: try container.decode(Int64.self, forKey: .size),
                storedAt: try container.decode(Date.self, forKey: .storedAt), sequence: try container.decode(Int.self, forKey: .sequence),
                sha256: try container.decodeIfPresent(String.self, forKey: .sha256) ?? "")
    }
  }

  /// The index file's content.
  private struct Index: Codable {
    var version: Int
    var artifacts: [Entry]
  }

  private struct State: Sendable {
    var entries: [String: Entry] = [:]
    /// How many entries use each blob (by SHA-256).
    var blobUsers: [String: Int] = [:]
    /// Bytes of committed blobs.
    var storedBytes: Int64 = 0
    /// Bytes promised to writes in progress.
    var reservedBytes: Int64 = 0
    /// The sequence number of the next stored artifact.
    var nextSequence = 0
  }

  /// Opens the store in `directory`, creating the directory if needed and reading the index of
  /// artifacts stored there before. Index entries whose files are gone are dropped, as are blobs
  /// no entry uses (a crash between writing a blob and the index).
  /// - Throws: ``ArtifactStoreError/writeFailed(path:reason:)`` if the directory cannot be made,
  ///   ``ArtifactStoreError/unreadableSource(path:reason:)`` if the index cannot be read.
  public init(directory: URL, limits: Limits = .init()) throws(ArtifactStoreError) {
    self.directory = directory
    self.limits = limits
    let fileManager = FileManager.default
    let blobs: FileSystemBlobStore
    do {
      blobs = try FileSystemBlobStore(directory: directory.appendingPathComponent(Self.blobsFolderName, isDirectory: true))
    } catch {
      throw .writeFailed(path: error.path, reason: error.reason)
    }
    var state = State()
    let indexURL = directory.appendingPathComponent(Self.indexFileName, isDirectory: false)
    if fileManager.fileExists(atPath: indexURL.path) {
      let index: Index
      do {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        index = try decoder.decode(Index.self, from: Data(contentsOf: indexURL))
      } catch {
        throw .unreadableSource(path: indexURL.path, reason: Self.reason(error))
      }
      var migrated = false
      for var entry in index.artifacts where Artifact.isValidID(entry.id) && entry.name == ArtifactName.sanitized(entry.name)
        && state.entries[entry.id] == nil {
        let url = Self.fileURL(in: directory, id: entry.id, name: entry.name)
        guard fileManager.fileExists(atPath: url.path) else { continue }
        if entry.sha256.isEmpty {
          guard let sha256 = Self.adoptAsBlob(url, in: blobs) else { continue }
          entry.sha256 = sha256
          migrated = true
        }
        guard let digest = BlobDigest(hex: entry.sha256), blobs.size(of: digest) != nil else { continue }
        state.entries[entry.id] = entry
        if state.blobUsers[entry.sha256, default: 0] == 0 { state.storedBytes += entry.size }
        state.blobUsers[entry.sha256, default: 0] += 1
        state.nextSequence = max(state.nextSequence, entry.sequence + 1)
      }
      if migrated { try Self.writeIndex(state.entries, in: directory) }
    }
    let usedBlobs = Set(state.blobUsers.keys.compactMap(BlobDigest.init(hex:)))
    self.blobs = blobs
    self.state = Mutex(state)
    removeTemporaryFiles()
    blobs.removeBlobs(notIn: usedBlobs)
  }

  /// The bytes of all stored artifacts together.
  public var totalBytes: Int64 { state.withLock { $0.storedBytes } }

  /// Stores `artifact` and returns its reference, with ``ArtifactReference/fileURL`` set.
  /// Storing an artifact whose identifier is already in the store returns the stored reference.
  /// - Throws: ``ArtifactStoreError``; whatever the error, no file is left behind.
  @discardableResult
  public func store(_ artifact: Artifact) throws(ArtifactStoreError) -> ArtifactReference {
    if let existing = try existingReference(beforeStoring: artifact) { return existing }
    let declared = max(0, artifact.size)
    guard declared <= limits.maxArtifactBytes else {
      throw .artifactTooLarge(size: declared, limit: limits.maxArtifactBytes)
    }
    try reserve(declared)
    var reserved = declared
    let temporary: URL
    do {
      temporary = try blobs.makeStagingFile()
    } catch {
      release(reserved)
      throw .writeFailed(path: error.path, reason: error.reason)
    }
    let written: Int64
    var digest = SHA256Digest()
    do throws(ArtifactStoreError) {
      switch artifact.content {
      case .data(let data):
        written = try Self.writeTemporary(temporary) { handle throws(ArtifactStoreError) in
          try Self.write(data, to: handle, path: temporary.path)
          return Int64(data.count)
        }
        digest.update(data)
      case .file(let source):
        written = try Self.writeTemporary(temporary) { handle throws(ArtifactStoreError) in
          try copy(from: source, to: handle, temporaryPath: temporary.path, reserved: &reserved, digest: &digest)
        }
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      release(reserved)
      throw error
    }
    // The commit settles the reservation and cleans up after itself, whatever happens.
    return try commit(artifact, temporary: temporary, size: written, digest: digest.finalizeBlobDigest(), reserved: reserved)
  }

  /// The reference to the stored artifact `id`, or `nil` if there is none.
  public func reference(id: String) -> ArtifactReference? {
    state.withLock { $0.entries[id] }.map(reference(for:))
  }

  /// References to all stored artifacts, oldest first.
  public func allReferences() -> [ArtifactReference] {
    state.withLock { Array($0.entries.values) }
      .sorted { $0.sequence < $1.sequence }
      .map(reference(for:))
  }

  /// The bytes of the stored artifact `id`.
  /// - Throws: ``ArtifactStoreError/unknownArtifact(id:)`` or
  ///   ``ArtifactStoreError/unreadableSource(path:reason:)``.
  public func contents(of id: String) throws(ArtifactStoreError) -> Data {
    guard let url = reference(id: id)?.fileURL else { throw .unknownArtifact(id: id) }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw .unreadableSource(path: url.path, reason: Self.reason(error))
    }
  }

  /// Removes the artifact `id`: its index entry, its file, and its blob unless another artifact
  /// has the same content.
  /// - Throws: ``ArtifactStoreError/unknownArtifact(id:)``, or
  ///   ``ArtifactStoreError/writeFailed(path:reason:)`` if the index or the files cannot be changed.
  public func remove(id: String) throws(ArtifactStoreError) {
    try state.withLock { (state: inout State) throws(ArtifactStoreError) in
      guard let entry = state.entries.removeValue(forKey: id) else { throw .unknownArtifact(id: id) }
      do throws(ArtifactStoreError) {
        try persistIndex(state.entries)
      } catch {
        state.entries[id] = entry
        throw error
      }
      let users = state.blobUsers[entry.sha256, default: 1] - 1
      state.blobUsers[entry.sha256] = users > 0 ? users : nil
      let folder = directory.appendingPathComponent(id, isDirectory: true)
      do {
        try FileManager.default.removeItem(at: folder)
      } catch {
        throw .writeFailed(path: folder.path, reason: Self.reason(error))
      }
      if users == 0, let digest = BlobDigest(hex: entry.sha256) {
        state.storedBytes -= entry.size
        do throws(BlobStoreError) {
          try blobs.remove(digest)
        } catch {
          throw .writeFailed(path: error.path, reason: error.reason)
        }
      }
    }
  }

  // MARK: - Writing

  /// Creates `temporary`, lets `body` fill it, flushes it to disk and closes it.
  private static func writeTemporary(
    _ temporary: URL, _ body: (FileHandle) throws(ArtifactStoreError) -> Int64
  ) throws(ArtifactStoreError) -> Int64 {
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw .writeFailed(path: temporary.path, reason: "cannot create file")
    }
    let handle: FileHandle
    do {
      handle = try FileHandle(forWritingTo: temporary)
    } catch {
      throw .writeFailed(path: temporary.path, reason: reason(error))
    }
    defer { try? handle.close() }
    let written = try body(handle)
    do {
      try handle.synchronize()
    } catch {
      throw .writeFailed(path: temporary.path, reason: Self.reason(error))
    }
    return written
  }

  /// Copies the file at `source` into `handle`, enforcing the limits as bytes arrive (a file can
  /// grow after its size was taken) and growing the reservation when needed.
  private func copy(
    from source: URL, to handle: FileHandle, temporaryPath: String, reserved: inout Int64, digest: inout SHA256Digest
  ) throws(ArtifactStoreError) -> Int64 {
    guard source.isFileURL else { throw .unreadableSource(path: source.absoluteString, reason: "not a file URL") }
    let input: FileHandle
    do {
      input = try FileHandle(forReadingFrom: source)
    } catch {
      throw .unreadableSource(path: source.path, reason: Self.reason(error))
    }
    defer { try? input.close() }
    var written: Int64 = 0
    while true {
      let chunk: Data?
      do {
        chunk = try input.read(upToCount: Self.copyChunkBytes)
      } catch {
        throw .unreadableSource(path: source.path, reason: Self.reason(error))
      }
      guard let chunk, !chunk.isEmpty else { break }
      written += Int64(chunk.count)
      guard written <= limits.maxArtifactBytes else {
        throw .artifactTooLarge(size: written, limit: limits.maxArtifactBytes)
      }
      if written > reserved {
        try reserve(written - reserved)
        reserved = written
      }
      try Self.write(chunk, to: handle, path: temporaryPath)
      digest.update(chunk)
    }
    return written
  }

  private static func write(_ data: Data, to handle: FileHandle, path: String) throws(ArtifactStoreError) {
    do {
      try handle.write(contentsOf: data)
    } catch {
      throw .writeFailed(path: path, reason: reason(error))
    }
  }

  /// Adopts the flushed staging file as the blob of its content (or drops it when the store has
  /// that content already), names it for the artifact and records it in the index — or,
  /// when another task stored the same id first, removes `temporary` and returns the stored
  /// reference. Either way the reservation is settled; on failure nothing new is left behind.
  private func commit(
    _ artifact: Artifact, temporary: URL, size: Int64, digest: BlobDigest, reserved: Int64
  ) throws(ArtifactStoreError) -> ArtifactReference {
    let sha256 = digest.hex
    let entry = try state.withLock { (state: inout State) throws(ArtifactStoreError) -> Entry in
      let fileManager = FileManager.default
      state.reservedBytes -= reserved
      if let existing = state.entries[artifact.id] {
        blobs.discardStagingFile(temporary)
        return existing
      }
      let blob = blobs.fileURL(of: digest)
      let isNewContent = state.blobUsers[sha256, default: 0] == 0
      if isNewContent {
        do throws(BlobStoreError) {
          try blobs.adopt(temporary, digest: digest, size: size)
        } catch {
          throw .writeFailed(path: error.path, reason: error.reason)
        }
      } else {
        blobs.discardStagingFile(temporary)
      }
      func removeNewBlob() { if isNewContent { try? blobs.remove(digest) } }

      let folder = directory.appendingPathComponent(artifact.id, isDirectory: true)
      let destination = Self.fileURL(in: directory, id: artifact.id, name: artifact.name)
      do {
        try? fileManager.removeItem(at: folder)  // left by a crash between naming and the index write
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: false)
        if link(blob.path, destination.path) != 0 {
          try fileManager.copyItem(at: blob, to: destination)   // no hard links here: a copy
        }
      } catch {
        try? fileManager.removeItem(at: folder)
        removeNewBlob()
        throw .writeFailed(path: destination.path, reason: Self.reason(error))
      }
      let entry = Entry(id: artifact.id, name: artifact.name, mimeType: artifact.mimeType, size: size, storedAt: Date(),
                        sequence: state.nextSequence, sha256: sha256)
      state.entries[artifact.id] = entry
      do throws(ArtifactStoreError) {
        try persistIndex(state.entries)
      } catch {
        state.entries[artifact.id] = nil
        try? fileManager.removeItem(at: folder)
        removeNewBlob()
        throw error
      }
      Self.synchronizeDirectory(directory)
      state.nextSequence += 1
      state.blobUsers[sha256, default: 0] += 1
      if isNewContent { state.storedBytes += size }
      return entry
    }
    return reference(for: entry)
  }

  /// Writes the index atomically: a flushed temporary file renamed over the old index.
  private func persistIndex(_ entries: [String: Entry]) throws(ArtifactStoreError) {
    try Self.writeIndex(entries, in: directory)
  }

  private static func writeIndex(_ entries: [String: Entry], in directory: URL) throws(ArtifactStoreError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let artifacts = entries.values.sorted { $0.sequence < $1.sequence }
    let data: Data
    do {
      data = try encoder.encode(Index(version: 2, artifacts: artifacts))
    } catch {
      throw .writeFailed(path: indexFileName, reason: reason(error))
    }
    let temporary = directory.appendingPathComponent(
      temporaryPrefix + "index-" + UUID().uuidString.lowercased(), isDirectory: false)
    let indexURL = directory.appendingPathComponent(indexFileName, isDirectory: false)
    do throws(ArtifactStoreError) {
      _ = try writeTemporary(temporary) { handle throws(ArtifactStoreError) in
        try write(data, to: handle, path: temporary.path)
        return Int64(data.count)
      }
      guard rename(temporary.path, indexURL.path) == 0 else {
        throw ArtifactStoreError.writeFailed(path: indexURL.path, reason: String(cString: strerror(errno)))
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
  }

  /// Makes the file of a version 1 artifact the blob of its content (a hard link; the file stays
  /// where it is) and returns its SHA-256, or `nil` if it cannot be read or linked.
  private static func adoptAsBlob(_ file: URL, in blobs: FileSystemBlobStore) -> String? {
    guard let input = try? FileHandle(forReadingFrom: file) else { return nil }
    defer { try? input.close() }
    var digest = SHA256Digest()
    while let chunk = try? input.read(upToCount: copyChunkBytes), !chunk.isEmpty { digest.update(chunk) }
    let sha256 = digest.finalizeBlobDigest()
    let blob = blobs.fileURL(of: sha256)
    if !FileManager.default.fileExists(atPath: blob.path), link(file.path, blob.path) != 0 {
      guard (try? FileManager.default.copyItem(at: file, to: blob)) != nil else { return nil }
    }
    return sha256.hex
  }

  // MARK: - Accounting

  /// Promises `bytes` to a write in progress, or throws ``ArtifactStoreError/storeFull(needed:available:)``.
  private func reserve(_ bytes: Int64) throws(ArtifactStoreError) {
    let maxStoreBytes = limits.maxStoreBytes
    try state.withLock { (state: inout State) throws(ArtifactStoreError) in
      let available = max(0, maxStoreBytes - state.storedBytes - state.reservedBytes)
      guard bytes <= available else { throw .storeFull(needed: bytes, available: available) }
      state.reservedBytes += bytes
    }
  }

  private func release(_ bytes: Int64) {
    state.withLock { $0.reservedBytes -= bytes }
  }

  // MARK: - Helpers

  private func reference(for entry: Entry) -> ArtifactReference {
    ArtifactReference(id: entry.id, name: entry.name, mimeType: entry.mimeType, size: entry.size,
                      fileURL: Self.fileURL(in: directory, id: entry.id, name: entry.name))
  }

  private static func fileURL(in directory: URL, id: String, name: String) -> URL {
    directory.appendingPathComponent(id, isDirectory: true).appendingPathComponent(name, isDirectory: false)
  }

  /// Removes temporary files a crashed write left in the directory.
  private func removeTemporaryFiles() {
    let fileManager = FileManager.default
    guard let names = try? fileManager.contentsOfDirectory(atPath: directory.path) else { return }
    for name in names where name.hasPrefix(Self.temporaryPrefix) {
      try? fileManager.removeItem(at: directory.appendingPathComponent(name, isDirectory: false))
    }
  }

  /// Flushes the directory's entries (the renames) to disk; best effort.
  private static func synchronizeDirectory(_ directory: URL) {
    guard let handle = try? FileHandle(forReadingFrom: directory) else { return }
    try? handle.synchronize()
    try? handle.close()
  }

  private static func reason(_ error: any Error) -> String {
    (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
  }
}
