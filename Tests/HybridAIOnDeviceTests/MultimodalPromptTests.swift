import CLlama
import Foundation
import HybridAI
import HybridAIFileStorage
@testable import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// The parts of on-device images and audio that need no model: image headers read before
/// decoding, media places in a prompt and which cached prefix survives, and where markers go.
@Suite("Multimodal prompts: headers, media places, markers")
struct MultimodalPromptTests {
  static func png(width: UInt32, height: UInt32) -> Data {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    for value in [width, height] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
    return Data(bytes + [8, 2, 0, 0, 0, 0, 0, 0, 0])
  }

  @Test("image headers give the declared size without decoding: PNG, GIF, BMP, JPEG")
  func headers() {
    #expect(ImageHeader.dimensions(of: Self.png(width: 640, height: 480))! == (640, 480))
    #expect(ImageHeader.dimensions(of: Data(Array("GIF89a".utf8) + [0x20, 0x03, 0x58, 0x02]))! == (800, 600))
    var bmp = [UInt8](repeating: 0, count: 26)
    bmp[0] = 0x42; bmp[1] = 0x4D; bmp[18] = 0x10; bmp[22] = 0xF0; bmp[23] = 0xFF; bmp[24] = 0xFF; bmp[25] = 0xFF   // height -16: top-down
    #expect(ImageHeader.dimensions(of: Data(bmp))! == (16, 16))
    // SOI, an APP0 segment of 4 bytes, SOF0 with height 300 and width 400
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x2C, 0x01, 0x90, 0x03]
      + [UInt8](repeating: 0, count: 12)
    #expect(ImageHeader.dimensions(of: Data(jpeg))! == (400, 300))
    #expect(ImageHeader.dimensions(of: Data("RIFF....WAVE".utf8)) == nil)
    #expect(ImageHeader.dimensions(of: Data([0x89, 0x50, 0x4E, 0x47])) == nil)   // cut short
  }

  @Test("a decompression bomb (a small PNG declaring 50,000 × 50,000 pixels) is refused before decoding, naming the size")
  func decompressionBomb() throws {
    let bomb = MediaInput(name: "bomb.png", mimeType: "image/png", bytes: Self.png(width: 50_000, height: 50_000))
    let error = #expect(throws: AttachmentError.self) { try bomb.checkDimensions() }
    #expect(error?.description.contains("50000×50000") == true, "\(String(describing: error))")
    try MediaInput(name: "fine.png", mimeType: "image/png", bytes: Self.png(width: 4000, height: 3000)).checkDimensions()
  }

  @Test("a medium's places are kept from the cache only whole and only for the same bytes")
  func prefixReuse() {
    func places(_ id: String) -> [llama_token] { (0..<3).map { MultimodalPrompt.placeholder(for: id, at: $0) } }
    #expect((places("A") + places("B")).allSatisfy { $0 < 0 } && Set(places("A") + places("B")).count == 6)
    let span = MultimodalPrompt.MediaSpan(start: 2, count: 3, id: "A", chunkIndex: 1)
    let cached: [llama_token] = [1, 2] + places("A") + [5, 6]
    let same = MultimodalPrompt(tokens: [1, 2] + places("A") + [5, 6, 7], media: [span])
    #expect(same.reusablePrefixLength(cached: cached) == 7)
    // Another picture of the same size: its places differ.
    #expect(same.reusablePrefixLength(cached: [1, 2] + places("B") + [5, 6]) == 2)
    // A prompt that ends with the picture keeps a place to evaluate, so the picture goes whole.
    let endsWithIt = MultimodalPrompt(tokens: [1, 2] + places("A"), media: [span])
    #expect(endsWithIt.reusablePrefixLength(cached: cached) == 2 && endsWithIt.endsWithMedium)
    // Text only: as before.
    #expect(MultimodalPrompt(tokens: [1, 2, 9]).reusablePrefixLength(cached: cached) == 2)
    #expect(same.textTokens == [1, 2, 5, 6, 7])
  }

  @Test("markers go where the attachments the projector reads are; others are named in text")
  func markers() throws {
    let folder = try TemporaryDirectory("markers")
    defer { folder.remove() }
    let store = try FileArtifactStore(directory: folder.url)
    let image = try Attachment(contentsOf: TestRepository.dependency("photos/astronaut.png")).store(in: store)
    let pdf = try Attachment(data: Data("%PDF-1.4\n%%EOF".utf8), name: "a.pdf").store(in: store)
    let segments: [Transcript.Segment] = [
      .attachment(.init(reference: image)), .text(.init(content: "What is this?")), .attachment(.init(reference: pdf)),
    ]
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(segments: segments))]),
                                    options: GenerationOptions(), artifactStore: store)
    let rendering = MediaRendering(marker: "<M>", modalities: [.image])
    let content = rendering.content(of: segments, in: request)
    #expect(content.hasPrefix("<M>What is this?\n[attachment]"), "\(content)")
    #expect(rendering.attachments(in: request.transcript).map(\.reference.name) == ["astronaut.png"])
    #expect(!MediaRendering(marker: "<M>", modalities: [.audio]).reads(.init(reference: image)))
  }
}
