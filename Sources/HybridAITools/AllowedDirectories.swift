import Foundation

/// The directories a tool may read files from, and the check that a proposed path is inside one.
///
/// A path is resolved (made absolute against the first directory, `.`/`..` removed, symbolic
/// links followed) before it is compared, component by component, with each directory — also
/// resolved — so `../` tricks and links pointing outside are refused.
///
/// ```swift
/// let allowed = AllowedDirectories([URL(fileURLWithPath: "/srv/pictures")])
/// try allowed.resolve("me.jpg")              // /srv/pictures/me.jpg
/// try allowed.resolve("../../etc/passwd")    // throws
/// ```
public struct AllowedDirectories: Sendable, Hashable {
  /// The directories, as given.
  public let directories: [URL]

  /// - Parameter directories: absolute directory URLs; relative paths are resolved against the
  ///   first.
  public init(_ directories: [URL]) {
    self.directories = directories
  }

  /// The resolved file URL of `path` — a plain path, absolute or relative, or a `file://` URL —
  /// when it lies inside one of the directories.
  ///
  /// - Throws: ``SegmentPersonToolError/invalidPath(_:)`` for an empty path, a NUL or a non-file
  ///   URL; ``SegmentPersonToolError/pathNotAllowed(_:)`` when the resolved path is outside every
  ///   directory (or no directory is configured).
  public func resolve(_ path: String) throws(SegmentPersonToolError) -> URL {
    guard !path.isEmpty, !path.contains("\0") else { throw .invalidPath(path) }
    let raw: String
    if path.lowercased().hasPrefix("file:") {
      guard let url = URL(string: path), url.isFileURL, url.host == nil || url.host == "" || url.host == "localhost"
      else { throw .invalidPath(path) }
      raw = url.path
    } else if path.contains("://") {
      throw .invalidPath(path)
    } else {
      raw = path
    }
    guard let base = directories.first else { throw .pathNotAllowed(path) }
    let absolute = raw.hasPrefix("/") ? URL(fileURLWithPath: raw) : base.appendingPathComponent(raw)
    let resolved = absolute.standardizedFileURL.resolvingSymlinksInPath()
    let components = resolved.pathComponents
    for directory in directories {
      let root = directory.standardizedFileURL.resolvingSymlinksInPath().pathComponents
      if components.count > root.count, Array(components.prefix(root.count)) == root {
        return resolved
      }
    }
    throw .pathNotAllowed(path)
  }

  /// Whether `path` resolves (``resolve(_:)``) to an existing regular file.
  public func containsFile(_ path: String) -> Bool {
    guard let url = try? resolve(path) else { return false }
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
  }
}
