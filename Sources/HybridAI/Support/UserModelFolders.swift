import Foundation

/// The per-user folders HybridAI keeps models in, by the XDG base directory rules (a variable
/// counts only when it holds an absolute path).
public enum UserModelFolders {
  /// Models the user installs: `$XDG_DATA_HOME/hybridai/models`, else `~/.local/share/hybridai/models`.
  public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    base(environment["XDG_DATA_HOME"], else: ".local/share", environment: environment)
  }

  /// Models downloaded from a registry (`ModelDownloader`): `$XDG_CACHE_HOME/hybridai/models`, else
  /// `~/.cache/hybridai/models`.
  public static func downloaded(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    base(environment["XDG_CACHE_HOME"], else: ".cache", environment: environment)
  }

  private static func base(_ variable: String?, else belowHome: String, environment: [String: String]) -> URL {
    let folder: URL
    if let variable, variable.hasPrefix("/") {
      folder = URL(fileURLWithPath: variable, isDirectory: true)
    } else {
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      folder = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(belowHome, isDirectory: true)
    }
    return folder.appendingPathComponent("hybridai/models", isDirectory: true)
  }
}
