import Foundation
import HybridAI

/// A session read back from a ``SessionStore``: its record, its transcript, and the artifacts
/// the transcript refers to, resolved in the store's shared ``ArtifactStore``.
public struct SavedSession: Sendable, Hashable {
  /// The session's summary.
  public var record: SessionRecord
  /// The conversation, exactly as saved.
  public var transcript: Transcript
  /// The artifacts the transcript refers to, in the order they first appear, each with its local
  /// ``HybridAI/ArtifactReference/fileURL``. Artifacts whose files are gone are left out and
  /// listed in ``missingArtifactIDs``.
  public var artifacts: [ArtifactReference]
  /// Identifiers of artifacts the transcript refers to that the artifact store no longer holds.
  public var missingArtifactIDs: [String]

  /// A saved session with the given parts.
  public init(record: SessionRecord, transcript: Transcript, artifacts: [ArtifactReference],
              missingArtifactIDs: [String] = []) {
    self.record = record
    self.transcript = transcript
    self.artifacts = artifacts
    self.missingArtifactIDs = missingArtifactIDs
  }
}
