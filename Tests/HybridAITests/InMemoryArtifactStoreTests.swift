import Foundation
import HybridAI
import HybridAITestSupport
import Testing

/// HybridAI's, not Swift Testing's `Attachment`.
private typealias Attachment = HybridAI.Attachment

/// The store a session uses when none is given: artifacts in memory, nothing on the disk, the
/// same limits and errors as a store of files.
@Suite("In-memory artifact store")
struct InMemoryArtifactStoreTests {
  @Test("a session without a store keeps attachments and the model's files in memory; at the end the copies go, the model's files stay")
  func sessionDefault() async throws {
    let picture = Artifact(data: Data("the model's picture".utf8), mimeType: "image/png", name: "answer.png")
    let model = ScriptedLanguageModel { _, _ in [.textDelta("Here it is."), .artifact(picture)] }
    let session = GenerativeModelSession(model: model)
    let response = try await session.respond(to: Prompt {
      "Draw this again"
      try Attachment(data: Data("the user's text".utf8), name: "notes.txt", mimeType: "text/plain")
    })
    let store = session.artifactStore
    #expect(store is InMemoryArtifactStore)
    #expect(store.allReferences().map(\.name) == ["notes.txt", "answer.png"])
    #expect(store.allReferences().allSatisfy { $0.fileURL == nil }, "nothing is written to the disk")
    let answer = try #require(response.artifacts.first)
    #expect(answer.fileURL == nil)
    #expect(try store.contents(of: answer.id) == Data("the model's picture".utf8))

    #expect(session.removeAttachmentCopies() == 1)
    #expect(store.allReferences().map(\.name) == ["answer.png"])
    #expect(session.removeAttachmentCopies() == 0, "nothing left to remove")
    #expect(store.totalBytes == Int64("the model's picture".utf8.count))
  }

  @Test("limits per artifact and in all are typed errors that leave the store as it was; storing an id twice returns the first")
  func limits() throws {
    let store = InMemoryArtifactStore(limits: ArtifactStoreLimits(maxArtifactBytes: 10, maxStoreBytes: 15))
    let first = Artifact(data: Data(repeating: 1, count: 8), mimeType: "application/octet-stream", name: "a.bin")
    #expect(try store.store(first).size == 8)
    #expect(try store.store(first) == store.reference(id: first.id), "the same id again: the stored reference")
    #expect(throws: ArtifactStoreError.artifactTooLarge(size: 11, limit: 10)) {
      try store.store(Artifact(data: Data(count: 11), mimeType: "application/octet-stream", name: "big.bin"))
    }
    #expect(throws: ArtifactStoreError.storeFull(needed: 8, available: 7)) {
      try store.store(Artifact(data: Data(count: 8), mimeType: "application/octet-stream", name: "b.bin"))
    }
    #expect(store.allReferences().count == 1 && store.totalBytes == 8)
    #expect(throws: ArtifactStoreError.unknownArtifact(id: "nope")) { try store.remove(id: "nope") }
    #expect(throws: ArtifactStoreError.unknownArtifact(id: "nope")) { try store.contents(of: "nope") }
    try store.remove(id: first.id)
    #expect(store.allReferences().isEmpty && store.totalBytes == 0)
  }

  @Test("an artifact backed by a file is read when stored (the file may go afterwards); a file past the limit, or missing, is refused")
  func fileBacked() throws {
    let folder = try TemporaryDirectory("in-memory-store")
    defer { folder.remove() }
    let file = folder.appending("report.txt")
    try Data("a report".utf8).write(to: file)
    let store = InMemoryArtifactStore(limits: ArtifactStoreLimits(maxArtifactBytes: 10, maxStoreBytes: 100))
    let reference = try store.store(Artifact(fileAt: file, mimeType: "text/plain", name: "report.txt"))
    try FileManager.default.removeItem(at: file)
    #expect(try store.contents(of: reference.id) == Data("a report".utf8))
    #expect(reference.size == 8 && reference.fileURL == nil)

    let large = folder.appending("large.bin")
    try Data(count: 11).write(to: large)
    #expect(throws: ArtifactStoreError.artifactTooLarge(size: 11, limit: 10)) {
      try store.store(Artifact(fileAt: large, mimeType: "application/octet-stream", name: "large.bin"))
    }
    let missing = Artifact(fileAt: folder.appending("missing.bin"), mimeType: "application/octet-stream", name: "m.bin")
    #expect {
      try store.store(missing)
    } throws: { error in
      if case .unreadableSource = error as? ArtifactStoreError { return true }
      return false
    }
    #expect(store.allReferences().count == 1)
  }
}
