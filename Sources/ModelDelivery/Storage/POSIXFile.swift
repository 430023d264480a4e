import CLinuxExtras
import Foundation

/// Thin wrappers over the POSIX file calls the store needs, failing with the `errno` and path.
enum POSIXFile {
  /// A failed file operation.
  struct Failure: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))" }

    /// Whether the error means the disk (or the file-size limit, or a quota) is full.
    var isOutOfSpace: Bool { Self.outOfSpaceCodes.contains(code) }

    static let outOfSpaceCodes: Set<Int32> = [ENOSPC, EFBIG, EDQUOT]
  }

  /// Opens `path`, retrying on `EINTR`.
  static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Failure) -> Int32 {
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
      if fd >= 0 { return fd }
      if errno != EINTR { throw Failure(operation: "open", path: path, code: errno) }
    }
  }

  /// Writes all of `bytes` at `offset`.
  static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(Failure) {
    var written = 0
    while written < bytes.count {
      let result = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        throw Failure(operation: "write", path: path, code: result < 0 ? errno : EIO)
      }
    }
  }

  /// Writes all of `data` at `offset`.
  static func write(_ fd: Int32, _ data: Data, at offset: Int64, path: String) throws(Failure) {
    let result: Result<Void, Failure> = data.withUnsafeBytes { bytes in
      do throws(Failure) {
        try write(fd, bytes, at: offset, path: path)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }

  /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                   path: String) throws(Failure) -> Int {
    var total = 0
    while total < buffer.count {
      let result = pread(fd, buffer.baseAddress! + total, buffer.count - total, off_t(offset) + off_t(total))
      if result > 0 {
        total += result
      } else if result == 0 {
        break
      } else if errno != EINTR {
        throw Failure(operation: "read", path: path, code: errno)
      }
    }
    return total
  }

  /// Asks the kernel to start writing a range of the file back to disk, without waiting and
  /// without dropping the cached pages (Linux `sync_file_range(…, SYNC_FILE_RANGE_WRITE)`, as dpkg
  /// does), so that a later `fsync` finds little left to do; advisory, so failures are ignored.
  static func startWriteback(_ fd: Int32, from offset: Int64, count: Int64) {
    _ = hybridai_start_writeback(fd, offset, count)
  }

  static func sync(_ fd: Int32, path: String) throws(Failure) {
    guard fsync(fd) == 0 else { throw Failure(operation: "fsync", path: path, code: errno) }
  }

  static func truncate(_ fd: Int32, to length: Int64, path: String) throws(Failure) {
    guard ftruncate(fd, off_t(length)) == 0 else { throw Failure(operation: "truncate", path: path, code: errno) }
  }

  /// The size of the open file.
  static func size(_ fd: Int32, path: String) throws(Failure) -> Int64 {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw Failure(operation: "stat", path: path, code: errno) }
    return Int64(info.st_size)
  }

  /// The size of the regular file at `path`, or `nil` when there is none.
  static func regularFileSize(atPath path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// Renames atomically (same file system).
  static func rename(_ from: String, to: String) throws(Failure) {
    guard Glibc.rename(from, to) == 0 else { throw Failure(operation: "rename", path: "\(from) → \(to)", code: errno) }
  }

  /// Removes a file; a missing file is fine.
  /// Makes `path` a hard link to `target`, replacing whatever `path` was (through a temporary
  /// link renamed into place, so `path` is never missing).
  static func linkReplacing(_ target: String, at path: String) throws(Failure) {
    let temporary = path + ".link"
    unlinkIfPresent(temporary)
    guard Glibc.link(target, temporary) == 0 else { throw Failure(operation: "link", path: temporary, code: errno) }
    do { try rename(temporary, to: path) } catch {
      unlinkIfPresent(temporary)
      throw error
    }
    unlinkIfPresent(temporary)   // rename does nothing when both names are links to the same file
  }

  /// How many names the file at `path` has, or `nil` when it is missing.
  static func linkCount(atPath path: String) -> Int? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Int(status.st_nlink)
  }

  static func unlinkIfPresent(_ path: String) {
    _ = unlink(path)
  }

  /// `fsync`s a directory so that renames in it are durable.
  static func syncDirectory(_ path: String) {
    guard let fd = try? open(path, O_RDONLY | O_DIRECTORY) else { return }
    _ = fsync(fd)
    close(fd)
  }

  /// Writes `data` to `path` atomically: a temporary file beside it, `fsync`, rename, `fsync` of
  /// the directory.
  static func writeAtomically(_ data: Data, to path: String) throws(Failure) {
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
    let fd = try open(temporary, O_WRONLY | O_CREAT | O_EXCL)
    var isOpen = true
    defer { if isOpen { close(fd) } }
    do throws(Failure) {
      try write(fd, data, at: 0, path: temporary)
      try sync(fd, path: temporary)
      close(fd)
      isOpen = false
      try rename(temporary, to: path)
    } catch {
      unlinkIfPresent(temporary)
      throw error
    }
    syncDirectory((path as NSString).deletingLastPathComponent)
  }

  /// Creates the directory `path` and its missing parents.
  static func makeDirectory(_ path: String) throws(Failure) {
    var info = stat()
    if stat(path, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFDIR else { throw Failure(operation: "mkdir", path: path, code: ENOTDIR) }
      return
    }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty, parent != path { try makeDirectory(parent) }
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw Failure(operation: "mkdir", path: path, code: errno) }
  }
}
