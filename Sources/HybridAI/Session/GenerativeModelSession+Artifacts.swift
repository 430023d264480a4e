import Foundation
import Synchronization

extension GenerativeModelSession {
  /// The artifacts stored during one request, so that they can be removed if the request fails
  /// and its transcript entries are never committed (nothing is left orphaned).
  final class TurnArtifacts: Sendable {
    private let stored = Mutex<[(any ArtifactStore, String)]>([])

    func record(_ id: String, in store: any ArtifactStore) { stored.withLock { $0.append((store, id)) } }

    /// Removes every artifact recorded, newest first.
    func removeAll() {
      let stored = stored.withLock { stored in
        defer { stored.removeAll() }
        return stored
      }
      for (store, id) in stored.reversed() { try? store.remove(id: id) }
    }
  }

  /// Removes from ``artifactStore`` the copies of the files attached to the session's prompts;
  /// the files the model and its tools made stay (a prompt may attach a file the model made
  /// earlier: that one stays too). Call it when the conversation is over and its store is a
  /// temporary one — the command-line tools do at exit — so copies of the user's files do not
  /// pile up; never on a store that keeps the conversation for later.
  /// - Returns: How many copies were removed.
  @discardableResult
  public func removeAttachmentCopies() -> Int {
    let store = artifactStore
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
    return removed
  }

  /// Stores `artifacts` returned by one tool call: all of them or, if one cannot be stored,
  /// none (those already stored by this call are removed again). Artifacts that were in the
  /// store before are referenced, not stored again, and never removed.
  /// - Returns: The references, with their file URLs, in the tool's order.
  func storeArtifacts(_ artifacts: [Artifact], callID: String, turn: TurnArtifacts,
                      report: @Sendable (ToolActivity) -> Void) throws(ArtifactStoreError) -> [ArtifactReference] {
    guard !artifacts.isEmpty else { return [] }
    let store = artifactStore
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
    let store = artifactStore
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
