import Foundation
import HybridAI

extension GenerativeModelSession {
  /// Removes the temporary artifact store a session made for itself (one given no store keeps its
  /// artifacts in the system's temporary directory, and leaves them there for the user).
  public func removeOwnArtifactStore() {
    if let store = artifactStore { try? FileManager.default.removeItem(at: store.directory) }
  }
}
