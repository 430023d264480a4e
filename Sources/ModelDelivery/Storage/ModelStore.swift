import Foundation
import HybridAI
import HybridAIFileStorage
import Logging

/// The downloader's directory: one subdirectory per model (its name is a validated model name)
/// and the content-addressed blobs the installed files are hard links to.
///
/// ```
/// <directory>/installation-id
/// <directory>/.blobs/sha256/<ab>/<sha256>    the installed bytes, once however many models hold them
/// <directory>/.blobs.lock                    flock'd while adopting, linking or sweeping blobs
/// <directory>/<name>/model.json              the installed version (InstalledModelRecord)
/// <directory>/<name>/<sha256>.tflite         the installed file: a hard link to its blob
/// <directory>/<name>/download.part           a download under way or interrupted
/// <directory>/<name>/download.part.json      which blob the part belongs to (PartInfo)
/// <directory>/<name>/.lock                   flock'd while downloading or installing
/// ```
///
/// The part file stays per model (so a download resumes where it stopped); installing adopts it
/// into the ``FileSystemBlobStore`` (a rename, same file system) and links the model's file to the
/// blob. A blob whose only link is the store's own is unused and swept.
struct ModelStore: Sendable {
  let root: URL
  let logger: Logger

  static let metadataFileName = "model.json"
  static let partFileName = "download.part"
  static let partInfoFileName = "download.part.json"
  static let lockFileName = ".lock"
  /// Starts with a dot, so it is never a model name.
  static let blobDirectoryName = ".blobs"
  static let blobLockFileName = ".blobs.lock"

  func directory(for name: String) -> String { root.appendingPathComponent(name, isDirectory: true).path }
  func metadataPath(for name: String) -> String { "\(directory(for: name))/\(Self.metadataFileName)" }
  func partPath(for name: String) -> String { "\(directory(for: name))/\(Self.partFileName)" }
  func partInfoPath(for name: String) -> String { "\(directory(for: name))/\(Self.partInfoFileName)" }
  func lockPath(for name: String) -> String { "\(directory(for: name))/\(Self.lockFileName)" }
  func filePath(for record: InstalledModelRecord) -> String { "\(directory(for: record.name))/\(record.fileName)" }

  /// The installed version of `name`, when its metadata is readable and its file is present with
  /// the recorded size.
  func installed(_ name: String) -> InstalledModelRecord? {
    guard let data = FileManager.default.contents(atPath: metadataPath(for: name)) else { return nil }
    guard let record = try? Self.decoder.decode(InstalledModelRecord.self, from: data), record.isWellFormed(for: name)
    else {
      logger.warning("ignoring unreadable model metadata", metadata: ["model": "\(name)", "path": "\(metadataPath(for: name))"])
      return nil
    }
    let size = POSIXFile.regularFileSize(atPath: filePath(for: record))
    guard size == record.sizeBytes else {
      logger.warning("the installed model file is missing or has the wrong size", metadata: [
        "model": "\(name)", "version": "\(record.version)", "path": "\(filePath(for: record))",
        "expectedBytes": "\(record.sizeBytes)", "actualBytes": "\(size.map(String.init) ?? "none")",
      ])
      return nil
    }
    return record
  }

  /// The public description of an installed record.
  func customModel(_ record: InstalledModelRecord) -> CustomModel {
    CustomModel(name: record.name, version: record.version, path: filePath(for: record), size: record.sizeBytes,
                hash: record.sha256)
  }

  /// Creates the model's directory.
  func prepareDirectory(for name: String) throws(POSIXFile.Failure) {
    try POSIXFile.makeDirectory(directory(for: name))
  }

  /// Writes the metadata atomically.
  func commit(_ record: InstalledModelRecord) throws(POSIXFile.Failure) {
    let data: Data
    do { data = try Self.encoder.encode(record) } catch { throw POSIXFile.Failure(operation: "encode", path: metadataPath(for: record.name), code: EINVAL) }
    try POSIXFile.writeAtomically(data, to: metadataPath(for: record.name))
  }

  /// Adopts a complete, verified (and `fsync`ed) part as a blob, links the model's file to it,
  /// commits the metadata, then removes the previous version's file, anything else left over and
  /// blobs no model uses any more. Until the metadata is committed the previous version stays
  /// installed; when adopting fails the part stays too. Call with the model's lock held.
  func install(partAt partPath: String, as record: InstalledModelRecord) async throws {
    let previous = installed(record.name)
    let blobs = try blobStore()
    let digest = try blobDigest(record.sha256)
    try await withBlobLock {
      // The store's staging file becomes a second name of the part, so a failed adoption
      // (which drops the staging file) leaves the part and its bytes where they were.
      let staging: URL
      do throws(BlobStoreError) { staging = try blobs.makeStagingFile() } catch { throw Self.failure(error) }
      do { try POSIXFile.linkReplacing(partPath, at: staging.path) } catch {
        blobs.discardStagingFile(staging)
        throw error
      }
      let adoption: BlobAdoption
      do throws(BlobStoreError) { adoption = try blobs.adopt(staging, digest: digest, size: record.sizeBytes) } catch { throw Self.failure(error) }
      if adoption == .alreadyPresent {
        logger.debug("another model holds these bytes already; sharing them", metadata: [
          "model": "\(record.name)", "sha256": "\(record.sha256)",
        ])
      }
      POSIXFile.unlinkIfPresent(partPath)   // the bytes are the blob's now
      try POSIXFile.linkReplacing(blobs.fileURL(of: digest).path, at: filePath(for: record))
    }
    try await finishInstalling(record, replacing: previous)
  }

  /// Installs `record` from a blob the store holds already (another model has these bytes, or an
  /// earlier install adopted them and then failed), without downloading. Returns `false` when the
  /// store does not hold the blob. Call with the model's lock held.
  func installFromBlob(_ record: InstalledModelRecord) async throws -> Bool {
    let previous = installed(record.name)
    let blobs = try blobStore()
    let digest = try blobDigest(record.sha256)
    let linked = try await withBlobLock {
      guard blobs.size(of: digest) == record.sizeBytes else { return false }
      try POSIXFile.linkReplacing(blobs.fileURL(of: digest).path, at: filePath(for: record))
      return true
    }
    guard linked else { return false }
    logger.info("installing the model from bytes already on this device", metadata: [
      "model": "\(record.name)", "version": "\(record.version)", "sha256": "\(record.sha256)",
    ])
    POSIXFile.unlinkIfPresent(partPath(for: record.name))
    try await finishInstalling(record, replacing: previous)
    return true
  }

  /// Commits the metadata of a linked file and removes what the previous version left.
  private func finishInstalling(_ record: InstalledModelRecord, replacing previous: InstalledModelRecord?) async throws {
    POSIXFile.syncDirectory(directory(for: record.name))
    try commit(record)
    POSIXFile.unlinkIfPresent(partInfoPath(for: record.name))
    if let previous, previous.fileName != record.fileName {
      POSIXFile.unlinkIfPresent(filePath(for: previous))
    }
    removeLeftovers(of: record.name, keeping: record.fileName)
    await removeUnusedBlobs()
  }

  /// Removes files in the model's directory that neither the metadata nor a download names
  /// (e.g. a file renamed into place by a process that died before committing its metadata).
  func removeLeftovers(of name: String, keeping fileName: String) {
    let keep: Set<String> = [fileName, Self.metadataFileName, Self.partFileName, Self.partInfoFileName, Self.lockFileName]
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory(for: name)) else { return }
    for entry in entries where !keep.contains(entry) {
      logger.debug("removing a leftover file", metadata: ["model": "\(name)", "file": "\(entry)"])
      POSIXFile.unlinkIfPresent("\(directory(for: name))/\(entry)")
    }
  }

  /// Removes everything of `name`: metadata first (so the model is gone at once), then the files,
  /// then the blobs no model uses any more. Returns whether anything was there.
  func remove(_ name: String) async -> Bool {
    let directory = directory(for: name)
    guard FileManager.default.fileExists(atPath: directory) else { return false }
    let hadModel = FileManager.default.fileExists(atPath: metadataPath(for: name))
      || FileManager.default.fileExists(atPath: partPath(for: name))
    POSIXFile.unlinkIfPresent(metadataPath(for: name))
    POSIXFile.syncDirectory(directory)
    try? FileManager.default.removeItem(atPath: directory)
    await removeUnusedBlobs()
    return hadModel
  }

  // MARK: - Blobs

  /// The content-addressed store of installed bytes, `<root>/.blobs`.
  func blobStore() throws(POSIXFile.Failure) -> FileSystemBlobStore {
    do {
      return try FileSystemBlobStore(directory: root.appendingPathComponent(Self.blobDirectoryName, isDirectory: true)
        .appendingPathComponent("sha256", isDirectory: true), layout: .sharded)
    } catch {
      throw Self.failure(error)
    }
  }

  /// Removes the blobs that no model's file links to (their link count is 1: the store's own),
  /// left by a removal, an update or a crash between adopting a blob and linking it. Best effort:
  /// a sweep that cannot run (cancelled, unreadable store) leaves them for the next one.
  func removeUnusedBlobs() async {
    guard let blobs = try? blobStore() else { return }
    try? await withBlobLock {
      let unused = blobs.allDigests().filter { POSIXFile.linkCount(atPath: blobs.fileURL(of: $0).path) == 1 }
      for digest in unused {
        logger.debug("removing a blob no model uses", metadata: ["sha256": "\(digest.hex)"])
        try? blobs.remove(digest)
      }
    }
  }

  /// Runs `body` holding the store-wide blob lock, so that a sweep never removes a blob between
  /// its adoption and its link (in this process or another).
  private func withBlobLock<T>(_ body: () throws -> T) async throws -> T {
    let lock = try await ModelLock.acquire(at: root.appendingPathComponent(Self.blobLockFileName).path)
    defer { lock.release() }
    return try body()
  }

  private func blobDigest(_ sha256: String) throws(POSIXFile.Failure) -> BlobDigest {
    guard let digest = BlobDigest(hex: sha256) else { throw POSIXFile.Failure(operation: "adopt", path: sha256, code: EINVAL) }
    return digest
  }

  /// A blob store failure as the file failure the downloader maps to its errors.
  private static func failure(_ error: BlobStoreError) -> POSIXFile.Failure {
    POSIXFile.Failure(operation: error.operation, path: error.path, code: error.code ?? EIO)
  }

  /// The names of the models with a directory (valid names only).
  func modelNames() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter(ModelName.isValid).sorted()
  }

  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }()

  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()
}
