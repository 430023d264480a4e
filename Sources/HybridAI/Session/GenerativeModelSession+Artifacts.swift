import Foundation
import Synchronization

extension GenerativeModelSession {
  /// Where a session keeps the artifacts its tools make: the store given to the initialiser, or
  /// one in a temporary directory of its own, created when the first artifact arrives.
  final class ArtifactStorage: Sendable {
    private let store: Mutex<ArtifactStore?>
    private let sessionID: String
    /// Whether the store is the session's own temporary one (none was given).
    let isTemporary: Bool

    init(store: ArtifactStore?, sessionID: String) {
      self.store = Mutex(store)
      self.sessionID = sessionID
      isTemporary = store == nil
    }

    /// The store, if it was given or has been created.
    var current: ArtifactStore? { store.withLock { $0 } }

    /// The store, created now if needed: `<temporary directory>/HybridAI-artifacts-<uid>/<session id>`,
    /// in a folder only this user can enter.
    func resolve() throws(ArtifactStoreError) -> ArtifactStore {
      try store.withLock { (store: inout ArtifactStore?) throws(ArtifactStoreError) -> ArtifactStore in
        if let store { return store }
        let folder = try PrivateTemporaryFolder.url(prefix: "HybridAI-artifacts")
        let created = try ArtifactStore(directory: folder.appendingPathComponent(sessionID, isDirectory: true))
        store = created
        return created
      }
    }
  }

  /// The artifacts stored during one request, so that they can be removed if the request fails
  /// and its transcript entries are never committed (nothing is left orphaned).
  final class TurnArtifacts: Sendable {
    private let stored = Mutex<[(ArtifactStore, String)]>([])

    func record(_ id: String, in store: ArtifactStore) { stored.withLock { $0.append((store, id)) } }

    /// Removes every artifact recorded, newest first.
    func removeAll() {
      let stored = stored.withLock { stored in
        defer { stored.removeAll() }
        return stored
      }
      for (store, id) in stored.reversed() { try? store.remove(id: id) }
    }
  }

  /// The artifact store the session keeps tools' artifacts in: the one given to the initialiser,
  /// or — when none was given — the session's own temporary store once the first artifact has
  /// been made (`nil` before).
  public var artifactStore: ArtifactStore? { artifactStorage.current }

  /// Removes the copies of the files attached to the session's prompts from the session's own
  /// temporary store, when it made one (a store given to the initialiser is left alone). Call it
  /// when the conversation is over and will not be continued — the command-line tools do at exit
  /// — so copies of the user's files do not pile up; the files the model and its tools made stay
  /// (the store's folder is removed when none are left).
  /// - Returns: How many copies were removed.
  @discardableResult
  public func removeTemporaryAttachmentCopies() -> Int {
    guard artifactStorage.isTemporary, let store = artifactStorage.current else { return 0 }
    var attached: Set<String> = []
    var made: Set<String> = []   // a prompt may attach a file the model made earlier: that one stays
    for entry in transcript {
      switch entry {
      case .prompt(let prompt): attached.formUnion(prompt.segments.storedAttachments.map(\.reference.id))
      case .response(let response): made.formUnion(response.segments.storedAttachments.map(\.reference.id))
      case .toolOutput(let output): made.formUnion(output.artifacts.map(\.id))
      case .instructions, .toolCalls: break
      }
    }
    var removed = 0
    for id in attached.subtracting(made) where (try? store.remove(id: id)) != nil { removed += 1 }
    if store.allReferences().isEmpty { try? FileManager.default.removeItem(at: store.directory) }   // nothing left to keep
    return removed
  }

  /// Stores `artifacts` returned by one tool call: all of them or, if one cannot be stored,
  /// none (those already stored by this call are removed again). Artifacts that were in the
  /// store before are referenced, not stored again, and never removed.
  /// - Returns: The references, with their file URLs, in the tool's order.
  func storeArtifacts(_ artifacts: [Artifact], callID: String, turn: TurnArtifacts,
                      report: @Sendable (ToolActivity) -> Void) throws(ArtifactStoreError) -> [ArtifactReference] {
    guard !artifacts.isEmpty else { return [] }
    let store = try artifactStorage.resolve()
    var references: [ArtifactReference] = []
    var storedHere: [String] = []
    do throws(ArtifactStoreError) {
      for artifact in artifacts {
        let isNew = store.reference(id: artifact.id) == nil
        let reference = try store.store(artifact)
        if isNew, !storedHere.contains(reference.id) { storedHere.append(reference.id) }
        if !references.contains(where: { $0.id == reference.id }) { references.append(reference) }
      }
    } catch {
      for id in storedHere.reversed() { try? store.remove(id: id) }
      throw error
    }
    for id in storedHere { turn.record(id, in: store) }
    for reference in references { report(.artifactCreated(callID: callID, reference)) }
    return references
  }

  /// Stores a file the model made as part of its answer, recorded on the turn (removed again if
  /// the turn fails). A file the store refuses (too large, disk full) fails the turn with the
  /// store's typed error.
  func storeModelArtifact(_ artifact: Artifact, turn: TurnArtifacts) throws(ArtifactStoreError) -> ArtifactReference {
    let store = try artifactStorage.resolve()
    let isNew = store.reference(id: artifact.id) == nil
    let reference = try store.store(artifact)
    if isNew { turn.record(reference.id, in: store) }
    return reference
  }

  /// What the model reads when a tool's artifacts could not be stored: the reason, never a path.
  static func modelMessage(for error: ArtifactStoreError) -> String {
    switch error {
    case .artifactTooLarge, .storeFull: "error: the tool's artifacts could not be kept: \(error)"
    case .unreadableSource, .writeFailed, .unknownArtifact: "error: the tool's artifacts could not be kept (storage failed)"
    }
  }
}
