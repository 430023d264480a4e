import ArgumentParser
import Foundation

/// Checks a file named on the command line before any work starts, so a typo or a folder given by
/// mistake is a usage error naming it — not a failure halfway through (a model created on a server
/// and then no file to upload into it).
public enum FileArgument {
  /// Throws a usage error starting with `label` unless `path` is a file this process can read.
  public static func requireReadableFile(_ path: String, label: String) throws {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw ValidationError("\(label): no file at \(path)")
    }
    guard !isFolder.boolValue else { throw ValidationError("\(label): \(path) is a folder, not a file") }
    guard FileManager.default.isReadableFile(atPath: path) else {
      throw ValidationError("\(label): cannot read \(path) (permission denied)")
    }
  }
}
