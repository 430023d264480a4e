import Foundation

/// Where a session keeps artifacts — the files its tools make and copies of the files attached to
/// its prompts — so that the transcript and the model carry only ``ArtifactReference``s.
///
/// Two stores come with HybridAI: ``InMemoryArtifactStore`` (a session's default: nothing touches
/// the disk) and `FileArtifactStore` in the `HybridAIFileStorage` module (content-addressed files
/// in a directory, kept across runs; references carry a ``ArtifactReference/fileURL``). Another
/// backend — an object store, a database — conforms to this protocol.
///
/// ```swift
/// let store: any ArtifactStore = InMemoryArtifactStore()
/// let reference = try store.store(Artifact(data: wav, mimeType: "audio/wav", name: "speech.wav"))
/// let bytes = try store.contents(of: reference.id)
/// ```
///
/// A store is safe to use from many tasks at once. Whatever error a call throws, the store is
/// left as it was before the call.
public protocol ArtifactStore: AnyObject, Sendable {
  /// The size limits.
  var limits: ArtifactStoreLimits { get }

  /// The bytes of all stored artifacts together (each distinct content counted once where the
  /// store shares identical bytes).
  var totalBytes: Int64 { get }

  /// Stores `artifact` and returns its reference. Storing an artifact whose identifier is
  /// already in the store returns the stored reference.
  /// - Throws: ``ArtifactStoreError``.
  @discardableResult
  func store(_ artifact: Artifact) throws(ArtifactStoreError) -> ArtifactReference

  /// The reference to the stored artifact `id`, or `nil` if there is none.
  func reference(id: String) -> ArtifactReference?

  /// References to all stored artifacts, oldest first.
  func allReferences() -> [ArtifactReference]

  /// The bytes of the stored artifact `id`.
  /// - Throws: ``ArtifactStoreError/unknownArtifact(id:)`` or
  ///   ``ArtifactStoreError/unreadableSource(path:reason:)``.
  func contents(of id: String) throws(ArtifactStoreError) -> Data

  /// Removes the artifact `id`.
  /// - Throws: ``ArtifactStoreError/unknownArtifact(id:)``, or
  ///   ``ArtifactStoreError/writeFailed(path:reason:)`` when the backend cannot change.
  func remove(id: String) throws(ArtifactStoreError)
}

extension ArtifactStore {
  /// The first step of every store's ``store(_:)``: refuses an invalid identifier, and returns the
  /// stored reference when `artifact`'s identifier is in the store already (`nil` when it is new).
  package func existingReference(beforeStoring artifact: Artifact) throws(ArtifactStoreError) -> ArtifactReference? {
    guard Artifact.isValidID(artifact.id) else {
      throw .writeFailed(path: artifact.id, reason: "invalid artifact id")
    }
    return reference(id: artifact.id)
  }
}
