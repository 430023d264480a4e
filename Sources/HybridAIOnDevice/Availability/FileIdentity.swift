import Foundation

/// A file as it is now: path, size and modification time (of the file a link points to). Keys the
/// per-file caches (header checks, placements, loaded weights, load failures), so a file replaced
/// under the same path is looked at again.
struct FileIdentity: Hashable, Sendable {
  let path: String
  let size: UInt64
  let modifiedSeconds: Int
  let modifiedNanoseconds: Int

  /// `nil` when nothing is at `path`. One `stat` call: it runs for every request (availability),
  /// where Foundation's `attributesOfItem` took tens of microseconds (it also looks up the owner's
  /// and group's names).
  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    self.path = path
    size = UInt64(info.st_size)
    modifiedSeconds = Int(info.st_mtim.tv_sec)
    modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
  }
}
