import Foundation
import HybridAI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``BlobStore`` in a directory: blob `<sha256>` is the read-only file `<directory>/<sha256>`,
/// or `<directory>/<first two hex digits>/<sha256>` with ``Layout/sharded``; staging files are
/// `<directory>/.part-<host>-<pid>-<start>-<uuid>` (same file system, so adopting one is a rename).
/// Opening the store removes staging files whose writer has ended (a crash's leftovers); those of
/// processes still running are theirs.
///
/// Safe to use from many tasks at once, and from several processes sharing the directory (server
/// instances on one data folder): blobs are named by their contents and put in place by a rename.
public struct FileSystemBlobStore: BlobStore {
  /// How blob files are arranged in the directory.
  public enum Layout: Sendable {
    /// All blobs in the directory itself: for stores of at most a few thousand blobs.
    case flat
    /// Blobs in 256 subdirectories named by the digest's first two hex digits.
    case sharded
  }

  /// The directory holding the blobs.
  public let directory: URL
  /// How blob files are arranged.
  public let layout: Layout

  /// The name prefix of staging files inside ``directory``.
  public static let stagingPrefix = ".part-"

  /// Opens (creating when needed) the store in `directory` and removes the staging files of writers
  /// that have ended.
  public init(directory: URL, layout: Layout = .flat) throws(BlobStoreError) {
    self.directory = directory
    self.layout = layout
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw BlobStoreError(operation: "create directory", path: directory.path, reason: (error as NSError).localizedDescription)
    }
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(Self.stagingPrefix) {
      let path = directory.appendingPathComponent(name).path
      if StagingFileOwner.isAbandoned(path: path, suffix: name.dropFirst(Self.stagingPrefix.count)) { unlink(path) }
    }
  }

  public func makeStagingFile() throws(BlobStoreError) -> URL {
    let name = Self.stagingPrefix + StagingFileOwner.current.tag + "-" + UUID().uuidString.lowercased()
    let file = directory.appendingPathComponent(name, isDirectory: false)
    let descriptor = open(file.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw BlobStoreError(operation: "create", path: file.path) }
    close(descriptor)
    return file
  }

  @discardableResult
  public func adopt(_ file: URL, digest: BlobDigest, size: Int64) throws(BlobStoreError) -> BlobAdoption {
    let destination = fileURL(of: digest)
    if self.size(of: digest) == size {
      unlink(file.path)
      utimensat(AT_FDCWD, destination.path, nil, 0)   // adopted again now (see lastAdoption(of:))
      return .alreadyPresent
    }
    let folder = destination.deletingLastPathComponent()
    if layout == .sharded {
      guard mkdir(folder.path, 0o755) == 0 || errno == EEXIST else {
        let failure = BlobStoreError(operation: "mkdir", path: folder.path)
        unlink(file.path)
        throw failure
      }
    }
    chmod(file.path, 0o444)   // shared by everyone holding these bytes: read-only
    guard rename(file.path, destination.path) == 0 else {
      let failure = BlobStoreError(operation: "rename", path: destination.path)
      unlink(file.path)
      throw failure
    }
    Self.synchronizeDirectory(folder.path)
    return .stored
  }

  public func discardStagingFile(_ file: URL) {
    unlink(file.path)
  }

  public func size(of digest: BlobDigest) -> Int64? {
    var status = stat()
    guard stat(fileURL(of: digest).path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(status.st_size)
  }

  /// When the blob was last adopted — stored, or the same bytes adopted again — or `nil` when
  /// there is no such blob: its file's modification time. A sweep of unused blobs spares recent
  /// ones, which a writer may be about to record.
  public func lastAdoption(of digest: BlobDigest) -> Date? {
    var status = stat()
    guard stat(fileURL(of: digest).path, &status) == 0 else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
  }

  public func fileURL(of digest: BlobDigest) -> URL {
    switch layout {
    case .flat: directory.appendingPathComponent(digest.hex, isDirectory: false)
    case .sharded:
      directory.appendingPathComponent(String(digest.hex.prefix(2)), isDirectory: true)
        .appendingPathComponent(digest.hex, isDirectory: false)
    }
  }

  public func remove(_ digest: BlobDigest) throws(BlobStoreError) {
    let path = fileURL(of: digest).path
    guard unlink(path) == 0 || errno == ENOENT else { throw BlobStoreError(operation: "unlink", path: path) }
    if layout == .sharded {
      rmdir((path as NSString).deletingLastPathComponent)   // fails harmlessly while other blobs share it
    }
  }

  public func allDigests() -> [BlobDigest] {
    let fileManager = FileManager.default
    let names = (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
    switch layout {
    case .flat:
      return names.compactMap(BlobDigest.init(hex:))
    case .sharded:
      return names.filter { $0.utf8.count == 2 }.flatMap { shard in
        ((try? fileManager.contentsOfDirectory(atPath: directory.appendingPathComponent(shard).path)) ?? [])
          .filter { $0.hasPrefix(shard) }
          .compactMap(BlobDigest.init(hex:))
      }
    }
  }

  /// Flushes a directory's entries (a rename) to disk; best effort.
  static func synchronizeDirectory(_ path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
  }
}
