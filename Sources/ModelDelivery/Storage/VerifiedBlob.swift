import CLinuxExtras
import Foundation

/// A cache blob named by its SHA-256 (`blobs/<sha256>`), checked against its name before it is
/// used: hashed once, then remembered on the file itself in an extended attribute that holds the
/// size and modification time it had, so a later load costs a `stat`. A file that changes (a
/// truncation, a rewrite) loses the mark and is hashed again; where the file system keeps no
/// extended attributes, every check hashes.
enum VerifiedBlob {
  static let attribute = "user.hybridai.sha256-verified"

  /// Whether the file at `path` has the SHA-256 `sha256` (lowercase hex).
  static func isIntact(_ path: String, sha256: String) -> Bool {
    guard let stamp = stamp(of: path) else { return false }
    if mark(of: path) == stamp { return true }
    guard (try? FileHashing.sha256(ofFileAt: path)) == sha256 else { return false }
    remember(path, stamp: stamp)
    return true
  }

  /// Marks the file at `path` as holding the bytes its name says (it was just checked).
  static func remember(_ path: String) {
    if let stamp = stamp(of: path) { remember(path, stamp: stamp) }
  }

  /// Whether `name` is a SHA-256 in lowercase hex (a blob of an LFS file).
  static func isSHA256(_ name: String) -> Bool { name.wholeMatch(of: /[0-9a-f]{64}/) != nil }

  private static func remember(_ path: String, stamp: String) {
    _ = stamp.withCString { setxattr(path, attribute, $0, strlen($0), 0) }
  }

  /// The file's size and modification time, as the mark holds them.
  private static func stamp(of path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  private static func mark(of path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 128)
    let length = getxattr(path, attribute, &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
