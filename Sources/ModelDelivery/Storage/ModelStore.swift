import Foundation
import Logging

/// The downloader's directory: one subdirectory per model (its name is a validated model name).
///
/// ```
/// <directory>/installation-id
/// <directory>/<name>/model.json              the installed version (InstalledModelRecord)
/// <directory>/<name>/<sha256>.tflite         the installed file
/// <directory>/<name>/download.part           a download under way or interrupted
/// <directory>/<name>/download.part.json      which blob the part belongs to (PartInfo)
/// <directory>/<name>/.lock                   flock'd while downloading or installing
/// ```
struct ModelStore: Sendable {
  let root: URL
  let logger: Logger

  static let metadataFileName = "model.json"
  static let partFileName = "download.part"
  static let partInfoFileName = "download.part.json"
  static let lockFileName = ".lock"

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

  /// Moves a complete, verified (and `fsync`ed) part into place, commits the metadata, then removes
  /// the previous version's file and anything else left over. Until the metadata is committed the
  /// previous version stays installed. Call with the model's lock held.
  func install(partAt partPath: String, as record: InstalledModelRecord) throws(POSIXFile.Failure) {
    let previous = installed(record.name)
    let destination = filePath(for: record)
    try POSIXFile.rename(partPath, to: destination)
    POSIXFile.syncDirectory(directory(for: record.name))
    try commit(record)
    POSIXFile.unlinkIfPresent(partInfoPath(for: record.name))
    if let previous, previous.fileName != record.fileName {
      POSIXFile.unlinkIfPresent(filePath(for: previous))
    }
    removeLeftovers(of: record.name, keeping: record.fileName)
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

  /// Removes everything of `name`: metadata first (so the model is gone at once), then the files.
  /// Returns whether anything was there.
  func remove(_ name: String) -> Bool {
    let directory = directory(for: name)
    guard FileManager.default.fileExists(atPath: directory) else { return false }
    let hadModel = FileManager.default.fileExists(atPath: metadataPath(for: name))
      || FileManager.default.fileExists(atPath: partPath(for: name))
    POSIXFile.unlinkIfPresent(metadataPath(for: name))
    POSIXFile.syncDirectory(directory)
    try? FileManager.default.removeItem(atPath: directory)
    return hadModel
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
