import Foundation
import HybridAI
import HybridAIFileStorage

/// Where a conversation of `hybrid generate` or `hybrid chat` keeps its artifacts: the session
/// store's (`--session`: kept), or files in a private temporary folder,
/// `<temporary directory>/HybridAI-artifacts-<uid>/<random id>`, so that the files the model and
/// its tools make have paths to print. At the end the copies of attached files in a temporary
/// store are removed (and its folder, when nothing else is in it); the model's files stay.
struct ConversationArtifacts: Sendable {
  let store: any ArtifactStore
  /// Whether the store is this conversation's temporary one.
  let isTemporary: Bool

  /// A temporary store.
  static func temporary() throws(ArtifactStoreError) -> ConversationArtifacts {
    let folder = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts")
    let store = try FileArtifactStore(directory: folder.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true))
    return ConversationArtifacts(store: store, isTemporary: true)
  }

  /// The store that keeps the conversation, or a temporary one when there is none.
  static func kept(in store: (any ArtifactStore)?) throws(ArtifactStoreError) -> ConversationArtifacts {
    guard let store else { return try temporary() }
    return ConversationArtifacts(store: store, isTemporary: false)
  }

  /// Removes the copies of the files attached in `session` from a temporary store.
  func finish(_ session: GenerativeModelSession) {
    guard isTemporary else { return }
    session.removeAttachmentCopies()
    if let store = store as? FileArtifactStore, store.allReferences().isEmpty {
      try? FileManager.default.removeItem(at: store.directory)   // nothing left to keep
    }
  }
}
