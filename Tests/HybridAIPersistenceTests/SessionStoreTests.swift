import Foundation
import HybridAI
import HybridAIPersistence
import HybridAITestSupport
import Testing

@Suite("SessionStore")
struct SessionStoreTests {
  @Test("save, list, load and delete")
  func saveListLoadDelete() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("sessions.sqlite").path))

    let session = GenerativeModelSession(model: ScriptedLanguageModel(identifier: "stub-model"), transcript: Fixtures.transcript(prompt: "first"),
                                         artifactStore: store.artifactStore)
    let first = try store.save(session, id: "first", title: "First")
    #expect(first.id == "first")
    #expect(first.title == "First")
    #expect(first.modelName == "stub-model")
    #expect(first.entryCount == 5)
    #expect(first.artifactCount == 0)
    #expect(first.createdAt == first.updatedAt)

    let generated = try store.save(Fixtures.transcript(prompt: "second"))
    #expect(UUID(uuidString: generated.id) != nil)
    #expect(generated.title == nil)
    #expect(try store.list().map(\.id) == [generated.id, "first"])

    // Saving again updates the record, keeps the title and creation date, and moves it to the front.
    let resaved = try store.save(session, id: "first")
    #expect(resaved.title == "First")
    #expect(resaved.createdAt == first.createdAt)
    #expect(resaved.updatedAt >= first.updatedAt)
    #expect(try store.list().map(\.id) == ["first", generated.id])

    let loaded = try store.load(id: "first")
    #expect(loaded.record == resaved)
    #expect(loaded.transcript == session.transcript)
    #expect(loaded.artifacts.isEmpty)

    try store.delete(id: "first")
    #expect(try store.list().map(\.id) == [generated.id])
    #expect(throws: SessionStoreError.notFound("first")) { try store.load(id: "first") }
    #expect(throws: SessionStoreError.notFound("first")) { try store.delete(id: "first") }
    #expect(throws: SessionStoreError.notFound("missing")) {
      try store.makeSession(id: "missing", model: ScriptedLanguageModel(identifier: "stub-model"))
    }
  }

  @Test("a transcript comes back byte for byte")
  func transcriptRoundTrip() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    let artifact = try Fixtures.storeArtifact("hello", in: store.artifactStore)
    let transcript = Fixtures.transcript(artifacts: [artifact])
    try store.save(transcript, modelName: "m", id: "bytes")

    let loaded = try store.load(id: "bytes")
    #expect(try loaded.transcript.jsonData() == transcript.jsonData())
    #expect(loaded.transcript == transcript)
    let reopened = try store.makeSession(id: "bytes", model: ScriptedLanguageModel(identifier: "stub-model"))
    #expect(try reopened.transcript.jsonData() == transcript.jsonData())
    #expect(reopened.artifactStore === store.artifactStore)
  }

  @Test("sessions and artifacts survive a restart")
  func persistsAcrossRestart() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let transcript: Transcript
    let artifact: ArtifactReference
    do {
      let store = try SessionStore(directory: directory.url)
      artifact = try Fixtures.storeArtifact("persisted bytes", name: "speech.txt", in: store.artifactStore)
      transcript = Fixtures.transcript(artifacts: [artifact])
      let session = GenerativeModelSession(model: ScriptedLanguageModel(identifier: "stub-model"), transcript: transcript,
                                           artifactStore: store.artifactStore)
      try store.save(session, id: "kept", title: "Kept")
    }

    let store = try SessionStore(directory: directory.url)
    let records = try store.list()
    #expect(records.map(\.id) == ["kept"])
    #expect(records.first?.artifactCount == 1)
    let loaded = try store.load(id: "kept")
    #expect(try loaded.transcript.jsonData() == transcript.jsonData())
    #expect(loaded.artifacts.map(\.id) == [artifact.id])
    #expect(loaded.missingArtifactIDs.isEmpty)
    let url = try #require(loaded.artifacts.first?.fileURL)
    #expect(url.isFileURL)
    #expect(try Data(contentsOf: url) == Data("persisted bytes".utf8))

    let session = try store.makeSession(id: "kept", model: ScriptedLanguageModel(identifier: "stub-model"))
    #expect(session.transcript == transcript)
    #expect(session.artifactStore.reference(id: artifact.id)?.fileURL == url)
  }

  @Test("an artifact shared by two sessions goes with the last of them")
  func sharedArtifacts() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    let shared = try Fixtures.storeArtifact("shared", name: "shared.txt", in: store.artifactStore)
    let onlyA = try Fixtures.storeArtifact("only a", name: "a.txt", in: store.artifactStore)
    let onlyB = try Fixtures.storeArtifact("only b", name: "b.txt", in: store.artifactStore)
    let unsaved = try Fixtures.storeArtifact("not in any saved session", in: store.artifactStore)
    try store.save(Fixtures.transcript(artifacts: [onlyA, shared, onlyA]), id: "a")
    try store.save(Fixtures.transcript(artifacts: [shared, onlyB]), id: "b")
    #expect(try store.load(id: "a").record.artifactCount == 2)
    #expect(try store.load(id: "a").artifacts.map(\.id) == [onlyA.id, shared.id])

    try store.delete(id: "a")
    #expect(store.artifactStore.reference(id: onlyA.id) == nil)
    #expect(store.artifactStore.reference(id: shared.id) != nil)
    #expect(store.artifactStore.reference(id: onlyB.id) != nil)
    let sharedURL = try #require(store.artifactStore.reference(id: shared.id)?.fileURL)
    #expect(FileManager.default.fileExists(atPath: sharedURL.path))

    try store.delete(id: "b")
    #expect(store.artifactStore.reference(id: shared.id) == nil)
    #expect(store.artifactStore.reference(id: onlyB.id) == nil)
    #expect(!FileManager.default.fileExists(atPath: sharedURL.path))
    #expect(store.artifactStore.reference(id: unsaved.id) != nil)

    // The removal is persisted in the artifact store's index too.
    let reopened = try SessionStore(directory: directory.url)
    #expect(reopened.artifactStore.allReferences().map(\.id) == [unsaved.id])
  }

  @Test("a missing artifact file is reported, not fatal")
  func missingArtifact() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    let artifact = try Fixtures.storeArtifact("gone soon", in: store.artifactStore)
    try store.save(Fixtures.transcript(artifacts: [artifact]), id: "s")
    try store.artifactStore.remove(id: artifact.id)
    let loaded = try store.load(id: "s")
    #expect(loaded.artifacts.isEmpty)
    #expect(loaded.missingArtifactIDs == [artifact.id])
  }

  @Test("two tasks saving 20 sessions each")
  func concurrentSaves() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    let shared = try Fixtures.storeArtifact("shared by all", in: store.artifactStore)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<2 {
        group.addTask {
          for index in 0..<20 {
            let own = try Fixtures.storeArtifact("worker \(worker) session \(index)", in: store.artifactStore)
            let session = GenerativeModelSession(
              model: ScriptedLanguageModel(identifier: "stub-model"), transcript: Fixtures.transcript(prompt: "\(worker)-\(index)", artifacts: [shared, own]),
              artifactStore: store.artifactStore)
            try store.save(session, id: "w\(worker)-\(index)", title: "Worker \(worker) #\(index)")
          }
        }
      }
      try await group.waitForAll()
    }
    let records = try store.list()
    #expect(records.count == 40)
    #expect(Set(records.map(\.id)).count == 40)
    #expect(records.allSatisfy { $0.artifactCount == 2 && $0.entryCount == 5 })
    for worker in 0..<2 {
      let own = records.filter { $0.id.hasPrefix("w\(worker)-") }.map(\.id)
      let expected = (0..<20).reversed().map { "w\(worker)-\($0)" }
      #expect(own == expected, "each worker's sessions are listed newest first")
    }
    let loaded = try store.load(id: "w1-7")
    #expect(loaded.artifacts.count == 2)
    #expect(loaded.transcript[1].text == "1-7")
  }

  @Test("invalid identifiers are refused", arguments: ["../x", "a\0b", "", String(repeating: "a", count: 65), "a b", "é", "a/b"])
  func invalidIDs(id: String) throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    #expect(throws: SessionStoreError.invalidID(id)) { try store.save(Fixtures.transcript(), id: id) }
    #expect(throws: SessionStoreError.invalidID(id)) { try store.load(id: id) }
    #expect(throws: SessionStoreError.invalidID(id)) { try store.delete(id: id) }
    #expect(try store.list().isEmpty)
  }

  @Test("the longest valid identifier is accepted")
  func longestValidID() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = try SessionStore(directory: directory.url)
    let id = String(repeating: "a", count: 32) + String(repeating: "Z9_-", count: 8)
    #expect(try store.save(Fixtures.transcript(), id: id).id == id)
  }
}
