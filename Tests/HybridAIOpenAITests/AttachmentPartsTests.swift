import Foundation
import HybridAI
import HybridAIFileStorage
@testable import HybridAIOpenAI
import HybridAITestSupport
import Testing

/// Attachments in Chat Completions requests: the kinds a model reads go as content parts with
/// their exact bytes (images as `image_url` data URLs, WAV as `input_audio`, PDFs as `file`),
/// the others as a line naming them; and what the server direction says of such parts.
@Suite("OpenAI attachment parts")
struct AttachmentPartsTests {
  static let png = TestMedia.onePixelPNG
  static let pdf = Data("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)

  /// A request whose prompt holds a PNG, a PDF and a remote image, stored in a fresh store.
  private func request(in directory: TemporaryDirectory) throws -> GenerationRequest {
    let store = try FileArtifactStore(directory: directory.url)
    let image = try store.store(Artifact(data: Self.png, mimeType: "image/png", name: "dot.png"))
    let document = try store.store(Artifact(data: Self.pdf, mimeType: "application/pdf", name: "memo.pdf"))
    let remote = URL(string: "https://example.com/photos/cat.jpg")!
    let prompt = Transcript.Prompt(segments: [
      .text(Transcript.TextSegment(content: "Compare these.")),
      .attachment(Transcript.AttachmentSegment(reference: image)),
      .attachment(Transcript.AttachmentSegment(reference: document)),
      .attachment(.remote(remote, name: "cat.jpg", mimeType: "image/jpeg")),
    ])
    return GenerationRequest(transcript: Transcript(entries: [.prompt(prompt)]), options: GenerationOptions(), artifactStore: store)
  }

  @Test("a model that reads images and documents gets the exact bytes as parts, in order; a text-only one gets lines naming them")
  func partsByCapability() throws {
    let directory = try TemporaryDirectory("openai-parts")
    defer { directory.remove() }
    let request = try request(in: directory)

    let wire = try ChatCompletionRequest(request, model: "m", sending: [.image, .document])
    guard case .parts(let parts)? = wire.messages.first?.content else {
      Issue.record("no parts: \(wire.messages)")
      return
    }
    #expect(parts.map(\.type) == ["text", "image_url", "file", "image_url"])
    #expect(parts[1].imageURL?.url == "data:image/png;base64," + Self.png.base64EncodedString())
    #expect(parts[2].file?.fileData == "data:application/pdf;base64," + Self.pdf.base64EncodedString())
    #expect(parts[2].file?.filename == "memo.pdf")
    #expect(parts[3].imageURL?.url == "https://example.com/photos/cat.jpg")
    // On the wire, as OpenAI names the fields.
    let json = String(decoding: try JSONEncoder().encode(wire), as: UTF8.self)
    #expect(json.contains("\"image_url\":{\"url\":\"data:image\\/png;base64,"))
    #expect(json.contains("\"file_data\""))

    // Images only: the PDF becomes a line naming it.
    let imagesOnly = try ChatCompletionRequest(request, model: "m", sending: [.image])
    guard case .parts(let some)? = imagesOnly.messages.first?.content else { Issue.record("no parts"); return }
    #expect(some.map(\.type) == ["text", "image_url", "text", "image_url"])
    #expect(some[2].text?.contains("memo.pdf") == true && some[2].text?.contains("application/pdf") == true)

    // Text only: one text with a line per file, the remote one with its URI.
    let textOnly = try ChatCompletionRequest(request, model: "m", sending: [.text])
    guard case .text(let text)? = textOnly.messages.first?.content else { Issue.record("not text"); return }
    #expect(text.hasPrefix("Compare these."))
    #expect(text.contains("dot.png") && text.contains("memo.pdf"))
    #expect(text.contains("https://example.com/photos/cat.jpg"))
  }

  @Test("a WAV goes as input_audio with its bytes; a FLAC, which the API does not take, as a line")
  func audio() throws {
    let directory = try TemporaryDirectory("openai-parts")
    defer { directory.remove() }
    let store = try FileArtifactStore(directory: directory.url)
    let wavBytes = TestMedia.toneWAV(seconds: 0)
    let wav = try store.store(Artifact(data: wavBytes, mimeType: "audio/wav", name: "hello.wav"))
    let flac = try store.store(Artifact(data: Data("fLaC".utf8) + Data(repeating: 0, count: 40), mimeType: "audio/flac", name: "song.flac"))
    let prompt = Transcript.Prompt(segments: [.attachment(Transcript.AttachmentSegment(reference: wav)),
                                              .attachment(Transcript.AttachmentSegment(reference: flac))])
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(prompt)]), options: GenerationOptions(), artifactStore: store)
    let wire = try ChatCompletionRequest(request, model: "m", sending: [.audio])
    guard case .parts(let parts)? = wire.messages.first?.content else { Issue.record("no parts"); return }
    #expect(parts.map(\.type) == ["input_audio", "text"])
    #expect(parts[0].inputAudio == .init(data: wavBytes.base64EncodedString(), format: "wav"))
    #expect(parts[1].text?.contains("song.flac") == true)
  }

  @Test("an attachment whose bytes are gone from the store is a typed error, not a silent drop")
  func missingBytes() throws {
    let directory = try TemporaryDirectory("openai-parts")
    defer { directory.remove() }
    var request = try request(in: directory)
    request.artifactStore = nil
    #expect(throws: AttachmentError.self) { try ChatCompletionRequest(request, model: "m", sending: [.image]) }
  }

  @Test("the server direction names the MIME type of a part it cannot take")
  func serverNamesTheKind() throws {
    func reading(_ part: ChatMessage.Part) -> OpenAIConversionError? {
      let wire = ChatCompletionRequest(model: "m", messages: [ChatMessage(role: "user", content: .parts([.text("What?"), part]))])
      do { _ = try wire.generationRequest(); return nil } catch { return error }
    }
    #expect(reading(ChatMessage.Part(type: "image_url", imageURL: .init(url: "data:image/webp;base64,AAAA")))
            == .unsupportedInput("image/webp"))
    #expect(reading(ChatMessage.Part(type: "input_audio", inputAudio: .init(data: "AAAA", format: "mp3"))) == .unsupportedInput("audio/mp3"))
    #expect(reading(ChatMessage.Part(type: "file", file: .init(fileData: "data:application/pdf;base64,AAAA")))
            == .unsupportedInput("application/pdf"))
    #expect(reading(ChatMessage.Part(type: "image_url", imageURL: .init(url: "https://example.com/a.png"))) == .unsupportedInput("image/*"))
  }
}
