import Foundation
@testable import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import Testing

private typealias Attachment = HybridAI.Attachment

/// Remote files (`Attachment(fileURI:mimeType:)`): the cloud model fetches them, so nothing is
/// stored, the transcript keeps the URI, routing goes by the declared kind and a model that
/// cannot fetch reads a line naming the URI.
@Suite("Remote attachments")
struct RemoteAttachmentTests {
  static let uri = URL(string: "https://generativelanguage.googleapis.com/v1beta/files/abc-123")!

  @Test("made from a URI and a declared kind; other schemes and unknown kinds are typed errors")
  func making() throws {
    let pdf = try Attachment(fileURI: Self.uri, mimeType: "application/pdf")
    #expect(pdf.modality == .document && pdf.fileURI == Self.uri && pdf.name == "abc-123")
    #expect(try Attachment(fileURI: URL(string: "gs://bucket/cat.jpg")!, mimeType: "image/jpeg").modality == .image)
    #expect(throws: AttachmentError.unsafePath("ftp://example.com/a.png")) {
      try Attachment(fileURI: URL(string: "ftp://example.com/a.png")!, mimeType: "image/png")
    }
    #expect(throws: AttachmentError.unsafePath("file:///etc/passwd")) {
      try Attachment(fileURI: URL(fileURLWithPath: "/etc/passwd"), mimeType: "text/plain")
    }
    #expect(throws: AttachmentError.unsupportedContent(name: "abc-123", detected: "text/html")) {
      try Attachment(fileURI: Self.uri, mimeType: "text/html")
    }
  }

  @Test("a session stores nothing for it, keeps the URI through JSON, and routes by its kind")
  func inASession() async throws {
    let directory = try TemporaryDirectory("remote-attachments")
    defer { directory.remove() }
    let store = try FileArtifactStore(directory: directory.url)
    let device = ScriptedLanguageModel(identifier: "device", deltas: ["from the device"])
    let cloud = ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["from the cloud"],
                                      capabilities: ModelCapabilities(inputModalities: [.document]))
    let session = GenerativeModelSession(model: .hybrid(primary: device, secondary: cloud), artifactStore: store)
    let answer = try await session.respond(to: Prompt { "Summarise this."; try Attachment(fileURI: Self.uri, mimeType: "application/pdf") })
    #expect(answer.content == "from the cloud")
    #expect(answer.rawResponse.fallback?.reason == .unsupported(UnsupportedReason.unsupportedInput("application/pdf").description))
    #expect(store.allReferences().isEmpty, "nothing was downloaded or stored")

    let sent = try #require(cloud.requests.first?.newAttachments.first)
    #expect(sent.remoteURL == Self.uri && sent.isRemote && sent.mimeType == "application/pdf")
    #expect(throws: AttachmentError.remoteFile(Self.uri.absoluteString)) { try cloud.requests[0].contents(of: sent) }
    #expect(session.transcript.fileReferences.isEmpty, "remote files are not the store's")
    #expect(try Transcript(jsonData: session.transcript.jsonData()) == session.transcript)

    // The device, which cannot fetch, later reads a line naming the URI.
    _ = try await session.respond(to: "Thanks!")
    let seen = try #require(device.requests.last)
    #expect(seen.readableText(of: seen.transcript.entries.compactMap { if case .prompt(let p) = $0 { p } else { nil } }[0].segments)
      .contains(Self.uri.absoluteString))
  }
}
