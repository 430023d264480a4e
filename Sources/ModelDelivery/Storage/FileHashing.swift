import Foundation
import Crypto

/// Hashes of files already on disk.
enum FileHashing {
  /// The SHA-256 (lowercase hex) of the file at `path`.
  static func sha256(ofFileAt path: String) throws(POSIXFile.Failure) -> String {
    let fd = try POSIXFile.open(path, O_RDONLY)
    defer { Glibc.close(fd) }
    let hasher = try PartialDownload.rehash(fd, bytes: try POSIXFile.size(fd, path: path), path: path)
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
  }
}
