import Foundation
@testable import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import TFLiteImage
import Testing

/// HybridAI's, not Swift Testing's `Attachment`.
private typealias Attachment = HybridAI.Attachment

/// Attachments: the kind read from real files' bytes (PNG and JPEG from libpng / libjpeg, a WAV,
/// a PDF, text), every kind of bad input as a typed error with nothing written, and the session
/// storing them once and keeping references that survive a JSON round trip.
@Suite("Attachments")
struct AttachmentTests {
  // MARK: Real files

  static func png() throws -> Data { try Bitmap.samplePortrait(width: 32, height: 24).pngData() }
  static func jpeg() throws -> Data { try Bitmap.samplePortrait(width: 32, height: 24).jpegData() }

  /// A real PCM WAV: 0.1 s of a 440 Hz tone, 16-bit mono, 8 kHz.
  static func wav() -> Data { TestMedia.toneWAV(seconds: 0.1) }

  /// A one-page PDF saying "Hello".
  static func pdf() -> Data {
    Data("""
      %PDF-1.4
      1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
      2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
      3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >> endobj
      4 0 obj << /Length 35 >> stream
      BT /F1 12 Tf 20 50 Td (Hello) Tj ET
      endstream endobj
      trailer << /Root 1 0 R >>
      %%EOF

      """.utf8)
  }

  @Test("the kind comes from the bytes, not the name")
  func kindsFromBytes() throws {
    let cases: [(Data, String, Modality)] = [
      (try Self.png(), "image/png", .image), (try Self.jpeg(), "image/jpeg", .image), (Self.wav(), "audio/wav", .audio),
      (Self.pdf(), "application/pdf", .document), (Data("Meeting notes: ship on Friday.\n".utf8), "text/plain", .text),
    ]
    for (bytes, mimeType, modality) in cases {
      let attachment = try Attachment(data: bytes, name: "misleading.txt")
      #expect(attachment.mimeType == mimeType)
      #expect(attachment.modality == modality)
      #expect(attachment.size == Int64(bytes.count))
    }
    #expect(try Attachment(data: try Self.png()).name == "attachment.png")
    #expect(try Attachment(data: try Self.jpeg(), mimeType: "image/jpg").mimeType == "image/jpeg", "aliases are accepted")
  }

  @Test("a file reached through a symbolic link attaches: the target's bytes and kind, the link's name; a dangling link is unreadable")
  func symbolicLink() throws {
    let directory = try TemporaryDirectory("attachments")
    defer { directory.remove() }
    let png = try Self.png()
    try png.write(to: directory.url.appendingPathComponent("IMG_0001.png"))
    let link = directory.url.appendingPathComponent("latest.png")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "IMG_0001.png")
    // Until 2026-11-27 (late): "not a regular file" (the link's own resource values).
    let attachment = try Attachment(contentsOf: link)
    #expect(attachment.name == "latest.png" && attachment.mimeType == "image/png")
    #expect(attachment.size == Int64(png.count))
    let dangling = directory.url.appendingPathComponent("gone.png")
    try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "missing.png")
    #expect(throws: AttachmentError.self) { try Attachment(contentsOf: dangling) }
  }

  @Test("bad input: each a typed error naming the problem")
  func badInput() throws {
    let directory = try TemporaryDirectory("attachments")
    defer { directory.remove() }
    let png = try Self.png()

    #expect(throws: AttachmentError.mismatch(name: "photo.png", declared: "application/pdf", detected: "image/png")) {
      try Attachment(data: png, name: "photo.png", mimeType: "application/pdf")
    }
    // A "PDF" that is really HTML.
    let html = Data("<!DOCTYPE html><html><body>Not a PDF</body></html>".utf8)
    #expect(throws: AttachmentError.unsupportedContent(name: "report.pdf", detected: "text/html")) {
      try Attachment(data: html, name: "report.pdf", mimeType: "application/pdf")
    }
    #expect(throws: AttachmentError.truncated(name: "cut.png", mimeType: "image/png")) {
      try Attachment(data: png.prefix(png.count - 20), name: "cut.png")
    }
    let wav = Self.wav()
    #expect(throws: AttachmentError.truncated(name: "cut.wav", mimeType: "audio/wav")) {
      try Attachment(data: wav.prefix(wav.count / 2), name: "cut.wav")
    }
    #expect(throws: AttachmentError.empty(name: "attachment")) { try Attachment(data: Data()) }

    let empty = directory.url.appendingPathComponent("empty.png")
    _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
    #expect(throws: AttachmentError.empty(name: "empty.png")) { try Attachment(contentsOf: empty) }
    let tricky = URL(fileURLWithPath: directory.url.path + "/sub/../photo.png")
    #expect(throws: AttachmentError.unsafePath(tricky.path)) { try Attachment(contentsOf: tricky) }
    #expect(throws: AttachmentError.self) { try Attachment(contentsOf: URL(string: "https://example.com/a.png")!) }
    #expect(throws: AttachmentError.self) { try Attachment(contentsOf: directory.url) }   // a directory
    #expect(throws: AttachmentError.self) { try Attachment(contentsOf: directory.url.appendingPathComponent("missing.png")) }
  }

  @Test("a 2 GB file is read only at its ends; storing it passes the size limit and leaves nothing behind")
  func hugeFile() async throws {
    let directory = try TemporaryDirectory("attachments")
    defer { directory.remove() }
    let huge = directory.url.appendingPathComponent("huge.png")
    let png = try Self.png()
    _ = FileManager.default.createFile(atPath: huge.path, contents: png.prefix(100))
    let handle = try FileHandle(forWritingTo: huge)
    try handle.truncate(atOffset: 2 << 30)   // sparse: nothing is written in between
    try handle.seek(toOffset: (2 << 30) - 12)
    try handle.write(contentsOf: png.suffix(12))   // ends with the IEND chunk
    try handle.close()

    let attachment = try Attachment(contentsOf: huge)
    #expect(attachment.size == 2 << 30)
    let store = try FileArtifactStore(directory: directory.url.appendingPathComponent("store"),
                                  limits: .init(maxArtifactBytes: 1 << 20))
    let session = GenerativeModelSession(model: ScriptedLanguageModel(), artifactStore: store)
    await #expect {
      try await session.respond(to: Prompt { "What is this?"; attachment })
    } throws: { error in
      if case AttachmentError.tooLarge(let name, _, let limit) = error { return name == "huge.png" && limit == 1 << 20 }
      return false
    }
    #expect(store.allReferences().isEmpty)
    #expect(store.totalBytes == 0)
    #expect(session.transcript.isEmpty)
  }

  @Test("a session stores the bytes once; the transcript keeps references that survive JSON; the model can read them")
  func sessionStoresAttachments() async throws {
    let directory = try TemporaryDirectory("attachments")
    defer { directory.remove() }
    let store = try FileArtifactStore(directory: directory.url)
    let png = try Self.png()
    let file = directory.url.appendingPathComponent("photo.png")
    try png.write(to: file)
    let model = ScriptedLanguageModel(capabilities: ModelCapabilities(inputModalities: [.image])) { request, _ in
      let received = request.newAttachments.compactMap { try? request.contents(of: $0) }
      return [.textDelta("received \(received.map(\.count))")]
    }
    let session = GenerativeModelSession(model: model, artifactStore: store)
    let response = try await session.respond(to: Prompt {
      "What is in this photo?"
      try Attachment(contentsOf: file)
      "And this one?"
      try Attachment(data: png, name: "copy.png")
    })
    #expect(response.content == "received [\(png.count), \(png.count)]")

    guard case .prompt(let prompt) = session.transcript.entries.first else {
      Issue.record("the prompt is the first entry")
      return
    }
    #expect(prompt.segments.text == "What is in this photo?And this one?")
    let attachments = prompt.segments.attachments
    #expect(attachments.map(\.mimeType) == ["image/png", "image/png"])
    #expect(attachments.allSatisfy { $0.reference.fileURL == nil }, "no local paths in a transcript")
    #expect(try store.contents(of: attachments[0].reference.id) == png)
    #expect(store.totalBytes == Int64(png.count), "identical bytes are stored once")

    let restored = try Transcript(jsonData: session.transcript.jsonData())
    #expect(restored == session.transcript)
    // Re-attaching a stored attachment copies nothing.
    let again = try Attachment(artifact: attachments[0].reference)
    _ = try await session.respond(to: Prompt { "Once more"; again })
    #expect(store.allReferences().count == 2)
  }

  @Test("routing: prefer on-device sends an image to the cloud and says why; only on-device throws naming the kind")
  func routingByInputKind() async throws {
    let png = try Self.png()
    let device = ScriptedLanguageModel(identifier: "device", deltas: ["from the device"])
    let cloud = ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["from the cloud"],
                                      capabilities: ModelCapabilities(inputModalities: [.image]))
    let hybrid = GenerativeModelSession(model: .hybrid(primary: device, secondary: cloud))
    let answer = try await hybrid.respond(to: Prompt { "What is this?"; try Attachment(data: png) })
    #expect(answer.content == "from the cloud")
    #expect(answer.rawResponse.fallback?.reason == .unsupported(UnsupportedReason.unsupportedInput("image/png").description))
    #expect(device.requests.isEmpty, "nothing was silently dropped on the device")

    // A text prompt afterwards may go back to the device: the old image reaches it as a reference.
    let next = try await hybrid.respond(to: "Thanks!")
    #expect(next.content == "from the device")
    let seen = try #require(device.requests.last)
    #expect(seen.transcript.entries.first.map { if case .prompt(let p) = $0 { p.segments.textWithAttachmentReferences } else { "" } }?
      .contains("image/png") == true)

    let onlyDevice = GenerativeModelSession(model: ScriptedLanguageModel(identifier: "device"))
    await #expect {
      try await onlyDevice.respond(to: Prompt { "What is this?"; try Attachment(data: png) })
    } throws: { error in
      if case GenerationError.unsupportedRequest(.unsupportedInput(let kind)) = error { return kind == "image/png" }
      return false
    }
    #expect(onlyDevice.transcript.isEmpty)
  }

  @Test("an artifact id that is not in the store is unknownArtifact")
  func unknownArtifact() async throws {
    let directory = try TemporaryDirectory("attachments")
    defer { directory.remove() }
    let session = GenerativeModelSession(model: ScriptedLanguageModel(), artifactStore: try FileArtifactStore(directory: directory.url))
    let ghost = try Attachment(artifact: ArtifactReference(id: "no-such-id", name: "ghost.png", mimeType: "image/png", size: 10))
    await #expect(throws: AttachmentError.unknownArtifact(id: "no-such-id")) {
      try await session.respond(to: Prompt { "Look"; ghost })
    }
  }
}
