import Foundation
import HybridAI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder in the temporary directory that only the current user can enter:
/// `<temporary directory>/<prefix>-<uid>`, mode 0700. Temporary files of one user (copies of the
/// files they attach, the answers' files) must not be readable by the machine's other users, and
/// one user's folder must not stop another's from working.
///
/// An existing folder is used only when it is a real directory (not a link) owned by this user;
/// its mode is narrowed to 0700 if it was wider. When the name is taken by something else (another
/// user made it first, or planted a link), a fresh folder with a random suffix is made instead.
public enum PrivateTemporaryFolder {
  /// The folder for `prefix`, made if needed.
  /// - Throws: ``ArtifactStoreError/writeFailed(path:reason:)`` if no private folder can be made.
  public static func url(prefix: String, in temporaryDirectory: URL = FileManager.default.temporaryDirectory)
    throws(ArtifactStoreError) -> URL {
    let user = getuid()
    let preferred = temporaryDirectory.appendingPathComponent("\(prefix)-\(user)", isDirectory: true)
    if mkdir(preferred.path, 0o700) == 0 || (errno == EEXIST && isPrivate(preferred.path, owner: user)) {
      return preferred
    }
    var template = Array(temporaryDirectory.appendingPathComponent("\(prefix)-\(user)-XXXXXX").path.utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {   // mode 0700
      throw .writeFailed(path: preferred.path, reason: String(cString: strerror(errno)))
    }
    return URL(fileURLWithPath: String(cString: made), isDirectory: true)
  }

  /// Whether `path` is a directory (not a link) owned by `owner`, narrowed to mode 0700 if needed.
  private static func isPrivate(_ path: String, owner: uid_t) -> Bool {
    var status = stat()
    guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == owner else { return false }
    return status.st_mode & 0o077 == 0 || chmod(path, 0o700) == 0
  }
}
