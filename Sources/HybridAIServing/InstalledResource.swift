import Foundation

/// A file a module ships as a SwiftPM resource, for servers: found in the resource bundle beside
/// the executable (also when the binary was moved with it, as in `make bundle`) or the test
/// bundle, else in the source tree the module was built from. Not `Bundle.module`, whose accessor
/// stops the process when the bundle is missing.
public enum InstalledResource {
  /// Where `path` may be, most likely first: `<bundle>/<path>` beside the main bundle and the
  /// executable, then `<sourceDirectory>/<path>`.
  public static func candidates(bundle: String, path: String, sourceDirectory: URL) -> [URL] {
    var directories = [Bundle.main.bundleURL]
    if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
      directories.append(executable.deletingLastPathComponent())
    }
    return directories.map { $0.appending(path: bundle).appending(path: path) } + [sourceDirectory.appending(path: path)]
  }

  /// The bytes of the first candidate that can be read, or `nil`.
  public static func contents(bundle: String, path: String, sourceDirectory: URL) -> Data? {
    for candidate in candidates(bundle: bundle, path: path, sourceDirectory: sourceDirectory) {
      if let data = try? Data(contentsOf: candidate) { return data }
    }
    return nil
  }
}
