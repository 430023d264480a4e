import Foundation

/// The executables of this package, found beside the running one (`hybrid`, `hybrid-bench`).
public enum Executables {
  /// The executable of this process.
  public static var current: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  }

  /// The executable `name` in the directory of this process's executable.
  public static func sibling(named name: String) -> URL {
    current.deletingLastPathComponent().appendingPathComponent(name)
  }
}
