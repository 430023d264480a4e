import Foundation
import HybridAI
import HybridAIPersistence
import HybridAITestSupport
import Testing

private typealias Attachment = HybridAI.Attachment

@Suite("SessionStore: attachments")
struct SavedAttachmentTests {
  static let png = TestMedia.onePixelPNG

  @Test("a saved session reopens after a restart with its attachments and the files the model made; deleting it removes them")
  func reopensWithAttachments() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let photo = directory.url.appendingPathComponent("photo.png")
    try Self.png.write(to: photo)
    let speech = TestMedia.toneWAV(seconds: 0)
    do {
      let store = try SessionStore(directory: directory.url)
      // A model that answers with a sound file, as Gemini's speech models do.
      let model = ScriptedLanguageModel(identifier: "cloud", source: .cloud,
                                        capabilities: ModelCapabilities(inputModalities: [.image], outputModalities: [.audio])) { _, _ in
        [.textDelta("Listen: "), .artifact(Artifact(data: speech, mimeType: "audio/wav", name: "reply.wav"))]
      }
      let session = GenerativeModelSession(model: model, artifactStore: store.artifactStore)
      _ = try await session.respond(to: Prompt { "Describe this, out loud."; try Attachment(contentsOf: photo) })
      try store.save(session, id: "with-photo")
    }
    try FileManager.default.removeItem(at: photo)   // the store has its own copy

    let store = try SessionStore(directory: directory.url)
    #expect(try store.list().first?.artifactCount == 2)
    let loaded = try store.load(id: "with-photo")
    #expect(loaded.missingArtifactIDs.isEmpty)
    #expect(loaded.artifacts.map(\.mimeType) == ["image/png", "audio/wav"])
    #expect(try Data(contentsOf: try #require(loaded.artifacts.first?.fileURL)) == Self.png)
    #expect(try Data(contentsOf: try #require(loaded.artifacts.last?.fileURL)) == speech)

    let session = try store.makeSession(id: "with-photo", model: ScriptedLanguageModel())
    guard case .prompt(let prompt)? = session.transcript.entries.first else { Issue.record("no prompt"); return }
    let attachment = try #require(prompt.segments.attachments.first)
    #expect(try session.artifactStore.contents(of: attachment.reference.id) == Self.png)
    // The photo can be sent again without copying it.
    let again = try Attachment(artifact: attachment.reference)
    #expect(again.mimeType == "image/png")

    try store.delete(id: "with-photo")
    #expect(store.artifactStore.allReferences().isEmpty, "the session's attachments went with it")
  }
}
