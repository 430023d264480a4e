import Foundation
import HybridAI

/// Finds the default on-device model file.
///
/// In order: `$HYBRIDAI_MODEL` (a GGUF path); `$HYBRIDAI_MODELS_DIR/<default>`; `.deps/models/<default>`
/// in the current directory or any parent (where `scripts/bootstrap` puts it); the same above the
/// running executable (a checkout's `.build/debug/hybrid` finds its bootstrap's model from any
/// folder); the user's model folder, `$XDG_DATA_HOME/hybridai/models/<default>` (else
/// `~/.local/share/hybridai/models`); the folder registry downloads go to,
/// `$XDG_CACHE_HOME/hybridai/models/<default>` (else `~/.cache/hybridai/models`). When none exists, the
/// first candidate is returned, so the model reports
/// ``ModelAvailability/UnavailableReason/modelNotReady`` naming a sensible path.
public enum ModelLocator {
  /// The file name of the default model.
  public static let defaultModelFileName = "SmolLM2-135M-Instruct.Q4_1.gguf"

  /// The default model's path: the first candidate above that exists, else the first candidate.
  public static func defaultModelPath(environment: [String: String] = ProcessInfo.processInfo.environment,
                                      currentDirectory: String = FileManager.default.currentDirectoryPath,
                                      executable: URL? = runningExecutable) -> String {
    if let explicit = environment["HYBRIDAI_MODEL"], !explicit.isEmpty { return explicit }
    let candidates = candidateFolders(environment: environment, currentDirectory: currentDirectory, executable: executable)
      .map { ($0 as NSString).appendingPathComponent(defaultModelFileName) }
    return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
  }

  /// The model folders that exist among those the default model is looked for in, in that order
  /// (what `hybrid models list --local` lists besides Hugging Face's cache and Ollama's store).
  public static func modelFolders(environment: [String: String] = ProcessInfo.processInfo.environment,
                                  currentDirectory: String = FileManager.default.currentDirectoryPath,
                                  executable: URL? = runningExecutable) -> [URL] {
    var seen = Set<String>()
    return candidateFolders(environment: environment, currentDirectory: currentDirectory, executable: executable)
      .filter { folder in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
          && seen.insert(URL(fileURLWithPath: folder).resolvingSymlinksInPath().path).inserted
      }
      .map { URL(fileURLWithPath: $0, isDirectory: true) }
  }

  /// The folders the default model is looked for in, in order (see the type's description).
  private static func candidateFolders(environment: [String: String], currentDirectory: String, executable: URL?) -> [String] {
    var folders: [String] = []
    if let directory = environment["HYBRIDAI_MODELS_DIR"], !directory.isEmpty { folders.append(directory) }
    folders += bootstrapFolders(from: URL(fileURLWithPath: currentDirectory, isDirectory: true))
    if let executable { folders += bootstrapFolders(from: executable.deletingLastPathComponent()) }
    folders.append(UserModelFolders.installed(environment: environment).path)
    folders.append(UserModelFolders.downloaded(environment: environment).path)
    return folders
  }

  /// The executable of this process, its links resolved (`/proc/self/exe`), or `nil` where there is none.
  public static var runningExecutable: URL? {
    let link = URL(fileURLWithPath: "/proc/self/exe")
    let resolved = link.resolvingSymlinksInPath()
    return resolved.path == link.path ? nil : resolved
  }

  /// `.deps/models` in `directory` and each folder above it.
  private static func bootstrapFolders(from directory: URL) -> [String] {
    var folders: [String] = []
    var directory = directory.standardizedFileURL
    while true {
      folders.append(directory.appendingPathComponent(".deps/models").path)
      let parent = directory.deletingLastPathComponent()
      if parent.path == directory.path { break }
      directory = parent
    }
    return folders
  }
}
