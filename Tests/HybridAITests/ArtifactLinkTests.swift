import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import Testing

/// A structured answer that names artifacts gets their file URLs: the `urls` + text shape of the article on returning images from Foundation Models tools.
@Suite struct ArtifactLinkTests {
  /// The answer type of that article (Foundation Models tools that return images).
  @Generable struct Reply {
    @Guide(description: "Files created for the user. Empty if none.") var urls: [String]
    @Guide(description: "Text response.") var text: String
  }

  static let wav = Data("RIFF-not-really-a-wav".utf8)

  private func session(answering json: String, store: any ArtifactStore) throws -> (GenerativeModelSession, ScriptedLanguageModel) {
    let call = Transcript.ToolCall(id: "s1", toolName: "speak", arguments: try GeneratedContent(json: "{}"))
    let model = ScriptedLanguageModel.rounds([.toolCalls([call]), .text(json)])
    let speak = RecordingTool(name: "speak") { _ in
      ToolOutput("Spoke.", artifacts: [Artifact(data: Self.wav, mimeType: "audio/wav", name: "speech.wav")])
    }
    return (GenerativeModelSession(model: model, tools: [speak], artifactStore: store), model)
  }

  private func makeStore() throws -> FileArtifactStore {
    try FileArtifactStore(directory: FileManager.default.temporaryDirectory
      .appendingPathComponent("ArtifactLinkTests-\(UUID().uuidString)", isDirectory: true))
  }

  @Test("the artifact's file name in `urls` becomes its file URL; the URL resolves to the bytes")
  func fileNameBecomesFileURL() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let (session, _) = try session(answering: #"{"urls": ["speech.wav", "https://example.com/x"], "text": "Hi!"}"#, store: store)
    let response = try await session.respond(to: "Say hi and read it aloud", generating: Reply.self)

    let artifact = try #require(response.artifacts.first)
    let firstURL = try #require(response.content.urls.first)
    let url = try #require(URL(string: firstURL))
    #expect(url.isFileURL)
    #expect(url == artifact.fileURL)
    #expect(try Data(contentsOf: url) == Self.wav)
    #expect(response.content.urls.last == "https://example.com/x")   // not an artifact: untouched
    #expect(response.content.text == "Hi!")
    // The transcript keeps what the model said; paths never enter it.
    #expect(response.rawContent.contains("\"speech.wav\""))
    let json = String(decoding: try session.transcript.jsonData(), as: UTF8.self)
    #expect(!json.contains(store.directory.path))
  }

  @Test("the artifact's id, alone or as artifact:<id>, links too; so does an artifact from an earlier turn")
  func idsLink() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let earlier = try store.store(Artifact(data: Data("earlier".utf8), mimeType: "text/plain", name: "notes.txt"))
    // The model only knows ids from the reference lines; the scripted one is told the earlier id.
    let (first, model) = try session(answering: "{}", store: store)
    _ = try await first.respond(to: "warm up")   // the first turn stores speech.wav
    let spoken = try #require(store.allReferences().first { $0.name == "speech.wav" })
    let seen = model.requests.last.map { String(decoding: try! $0.transcript.jsonData(), as: UTF8.self) }
    #expect(seen?.contains(spoken.id) == true, "the model's reference line carries the id")

    let json = #"{"urls": ["\#(spoken.id)", "artifact:\#(earlier.id)", "artifact:nonexistent"], "text": "t"}"#
    let (second, _) = try session(answering: json, store: store)
    let reply = try await second.respond(to: "again", generating: Reply.self).content
    #expect(reply.urls[0] == spoken.fileURL?.absoluteString)
    #expect(reply.urls[1] == earlier.fileURL?.absoluteString)
    #expect(reply.urls[2] == "artifact:nonexistent")
  }

  @Test("a file name shared by two artifacts of the turn links to neither")
  func ambiguousNamesStay() throws {
    let a = ArtifactReference(id: "a", name: "out.png", mimeType: "image/png", size: 1, fileURL: URL(fileURLWithPath: "/tmp/a/out.png"))
    let b = ArtifactReference(id: "b", name: "out.png", mimeType: "image/png", size: 1, fileURL: URL(fileURLWithPath: "/tmp/b/out.png"))
    let links = ArtifactLinks(turnArtifacts: [a, b], store: nil)
    #expect(links.fileURL(for: "out.png") == nil)
    #expect(links.fileURL(for: " a ") == a.fileURL)
    #expect(links.fileURL(for: "artifact://b") == b.fileURL)
    let resolved = links.resolve(try GeneratedContent(json: #"{"x": ["a", {"y": "b"}, 3, "out.png"]}"#))
    #expect(resolved.jsonString == #"{"x":["file:///tmp/a/out.png",{"y":"file:///tmp/b/out.png"},3,"out.png"]}"#)
  }

  @Test("text answers are returned as the model wrote them")
  func textAnswersUntouched() async throws {
    let store = try makeStore()
    defer { try? FileManager.default.removeItem(at: store.directory) }
    let (session, _) = try session(answering: "speech.wav", store: store)
    let response = try await session.respond(to: "Say hi")
    #expect(response.content == "speech.wav")
    #expect(response.artifacts.count == 1)
  }
}
