import Foundation
import Synchronization

/// Artifacts held in memory for the life of the store: a session's default when it is given no
/// store, so that a session never writes to the disk behind its caller's back. References carry
/// no ``ArtifactReference/fileURL``; read the bytes with ``contents(of:)``.
///
/// Sizes are limited per artifact and in all (``ArtifactStoreLimits``; the defaults suit memory:
/// 64 MiB an artifact, 512 MiB in all). An artifact backed by a file (``Artifact/Content/file(_:)``)
/// is read into memory when stored, so the file may be removed afterwards.
///
/// ```swift
/// let session = GenerativeModelSession(model: model, tools: [speech],
///                                      artifactStore: InMemoryArtifactStore())
/// ```
public final class InMemoryArtifactStore: ArtifactStore {
  /// The default limits of a store in memory.
  public static let defaultLimits = ArtifactStoreLimits(maxArtifactBytes: 64 << 20, maxStoreBytes: 512 << 20)

  public let limits: ArtifactStoreLimits

  private struct Entry: Sendable {
    var reference: ArtifactReference
    var data: Data
    var sequence: Int
  }

  private struct State: Sendable {
    var entries: [String: Entry] = [:]
    var totalBytes: Int64 = 0
    var nextSequence = 0
  }

  private let state = Mutex(State())

  /// An empty store with `limits`.
  public init(limits: ArtifactStoreLimits = InMemoryArtifactStore.defaultLimits) {
    self.limits = limits
  }

  public var totalBytes: Int64 { state.withLock { $0.totalBytes } }

  @discardableResult
  public func store(_ artifact: Artifact) throws(ArtifactStoreError) -> ArtifactReference {
    if let existing = try existingReference(beforeStoring: artifact) { return existing }
    let data = try bytes(of: artifact)
    let size = Int64(data.count)
    guard size <= limits.maxArtifactBytes else { throw .artifactTooLarge(size: size, limit: limits.maxArtifactBytes) }
    let limit = limits.maxStoreBytes
    return try state.withLock { (state: inout State) throws(ArtifactStoreError) -> ArtifactReference in
      if let existing = state.entries[artifact.id] { return existing.reference }
      guard state.totalBytes + size <= limit else {
        throw .storeFull(needed: size, available: max(0, limit - state.totalBytes))
      }
      let reference = ArtifactReference(id: artifact.id, name: artifact.name, mimeType: artifact.mimeType, size: size)
      state.entries[artifact.id] = Entry(reference: reference, data: data, sequence: state.nextSequence)
      state.nextSequence += 1
      state.totalBytes += size
      return reference
    }
  }

  public func reference(id: String) -> ArtifactReference? {
    state.withLock { $0.entries[id]?.reference }
  }

  public func allReferences() -> [ArtifactReference] {
    state.withLock { Array($0.entries.values) }.sorted { $0.sequence < $1.sequence }.map(\.reference)
  }

  public func contents(of id: String) throws(ArtifactStoreError) -> Data {
    guard let data = state.withLock({ $0.entries[id]?.data }) else { throw .unknownArtifact(id: id) }
    return data
  }

  public func remove(id: String) throws(ArtifactStoreError) {
    try state.withLock { (state: inout State) throws(ArtifactStoreError) in
      guard let entry = state.entries.removeValue(forKey: id) else { throw .unknownArtifact(id: id) }
      state.totalBytes -= Int64(entry.data.count)
    }
  }

  /// The artifact's bytes: its data, or its file read up to one byte past the per-artifact limit
  /// (a file can grow after its size was taken).
  private func bytes(of artifact: Artifact) throws(ArtifactStoreError) -> Data {
    switch artifact.content {
    case .data(let data):
      return data
    case .file(let url):
      guard url.isFileURL else { throw .unreadableSource(path: url.absoluteString, reason: "not a file URL") }
      guard artifact.size <= limits.maxArtifactBytes else {
        throw .artifactTooLarge(size: artifact.size, limit: limits.maxArtifactBytes)
      }
      do {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try handle.read(upToCount: Int(clamping: limits.maxArtifactBytes + 1)) ?? Data()
      } catch {
        throw .unreadableSource(path: url.path, reason: (error as? any LocalizedError)?.errorDescription ?? "\(error)")
      }
    }
  }
}
