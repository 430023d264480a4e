import Foundation

/// Finds the default on-device model file.
///
/// In order: `$HYBRIDAI_MODEL` (a GGUF path); `$HYBRIDAI_MODELS_DIR/<default>`; `.deps/models/<default>`
/// in the current directory or any parent (where `scripts/bootstrap` puts it);
/// `~/.cache/hybridai/models/<default>`. When none exists, the first candidate is returned, so the
/// model reports ``ModelAvailability/UnavailableReason/modelNotReady`` naming a sensible path.
public enum ModelLocator {
  /// The file name of the default model.
  public static let defaultModelFileName = "SmolLM2-135M-Instruct.Q4_1.gguf"

  public static func defaultModelPath(environment: [String: String] = ProcessInfo.processInfo.environment,
                                      currentDirectory: String = FileManager.default.currentDirectoryPath) -> String {
    if let explicit = environment["HYBRIDAI_MODEL"], !explicit.isEmpty { return explicit }
    var candidates: [String] = []
    if let directory = environment["HYBRIDAI_MODELS_DIR"], !directory.isEmpty {
      candidates.append((directory as NSString).appendingPathComponent(defaultModelFileName))
    }
    var directory = URL(fileURLWithPath: currentDirectory)
    while true {
      candidates.append(directory.appendingPathComponent(".deps/models/\(defaultModelFileName)").path)
      let parent = directory.deletingLastPathComponent()
      if parent.path == directory.path { break }
      directory = parent
    }
    let home = environment["HOME"] ?? NSHomeDirectory()
    candidates.append((home as NSString).appendingPathComponent(".cache/hybridai/models/\(defaultModelFileName)"))
    return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
  }
}
