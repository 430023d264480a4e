import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

private typealias Attachment = HybridAI.Attachment

/// A 1×1 PNG.
let onePixelPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

@Suite("Files in Gemini answers")
struct GeneratedFileTests {
  private func makeStore() throws -> (FileArtifactStore, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    return (try FileArtifactStore(directory: directory.url.appendingPathComponent("artifacts")), directory)
  }

  @Test("an image in the answer is stored once as an artifact with the exact bytes; the next turn sends its reference, not its bytes")
  func imageAnswerBecomesArtifact() async throws {
    let server = try await TestHTTPServer.start { request, _ in GeminiEchoReply.reply(to: request) }
    defer { Task { await server.stop() } }
    let (store, directory) = try makeStore()
    defer { directory.remove() }
    let session = GenerativeModelSession(model: testModel(server), artifactStore: store)

    var generated: [ArtifactReference] = []
    var completed: GenerativeModelSession.Response<String>?
    let stream = session.streamResponse(to: try Prompt { "Make it bluer."; try Attachment(data: onePixelPNG, name: "dot.png") })
    for try await event in stream.events {
      if case .generatedArtifact(let reference) = event { generated.append(reference) }
      if case .completed(let response) = event { completed = response }
    }
    let response = try #require(completed)
    #expect(response.content == GeminiEchoReply.text)
    #expect(response.rawResponse.modelVersion == "echo-image-001")
    let artifact = try #require(response.artifacts.first)
    #expect(response.artifacts.count == 1)
    #expect(generated.map(\.id) == [artifact.id], "streamed as it arrived, before completion")
    #expect(artifact.mimeType == "image/png")
    #expect(artifact.name == "gemini-1.png")
    #expect(try Data(contentsOf: try #require(artifact.fileURL)) == onePixelPNG)
    #expect(store.totalBytes == Int64(onePixelPNG.count), "the prompt's and the answer's identical bytes share their space")

    // The transcript's response holds the text and a reference, in the answer's order.
    guard case .response(let entry)? = session.transcript.entries.last else { Issue.record("no response entry"); return }
    #expect(entry.segments.text == GeminiEchoReply.text)
    #expect(entry.segments.attachments.map(\.reference.id) == [artifact.id])
    if case .attachment? = entry.segments.last {} else { Issue.record("the file comes after the text") }
    let saved = String(decoding: try JSONEncoder().encode(session.transcript), as: UTF8.self)
    #expect(!saved.contains(onePixelPNG.base64EncodedString()), "no bytes in the transcript")

    // Next turn: the model turn names the stored file; only the user's own attachment is sent as bytes.
    _ = try await session.respond(to: "Thanks!")
    let body = try jsonBody(server.requests[1])
    guard case .array(let contents)? = body["contents"] else { Issue.record("no contents"); return }
    #expect(contents.count == 3)
    let modelTurn = try JSONEncoder().encode(contents[1])
    let modelText = String(decoding: modelTurn, as: UTF8.self)
    #expect(!modelText.contains("inlineData"))
    #expect(!modelText.contains(Gemini.generatedFilePlaceholder))
    #expect(modelText.contains(artifact.id))
    #expect(GeminiEchoReply.lastUserFiles(of: server.requests[0].body).map(\.data) == [onePixelPNG.base64EncodedString()])
  }

  @Test("raw PCM speech (audio/L16) becomes a WAV file with its rate")
  func pcmBecomesWAV() async throws {
    let samples = Data([0x01, 0x00, 0xFF, 0x7F, 0x00, 0x80, 0x10, 0x00])
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=16000", "data": "\#(samples.base64EncodedString())"}}]}, "finishReason": "STOP"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request(options: GenerationOptions(responseModalities: [.audio])))
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    let wav = try #require(outcome.artifacts.first)
    #expect(wav.mimeType == "audio/wav")
    #expect(wav.name == "gemini-1.wav")
    let bytes = try #require(wav.data)
    #expect(bytes.count == 44 + samples.count)
    #expect(bytes.prefix(4) == Data("RIFF".utf8))
    #expect(bytes.suffix(samples.count) == samples)
    let rate = bytes[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    #expect(rate == 16000)
    // A WAV file the attachment sniffer accepts as complete.
    #expect(try Attachment(data: bytes).mimeType == "audio/wav")
    let body = try jsonBody(try #require(server.requests.first))
    #expect(body["generationConfig"]?["responseModalities"] == .array(["TEXT", "AUDIO"]))
  }

  @Test("inlineData that is not base64 is a typed invalid response")
  func invalidBase64() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {"mimeType": "image/png", "data": "%%%not base64%%%"}}]}, "finishReason": "STOP"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    guard case .invalidResponse(let detail)? = outcome.geminiError else {
      Issue.record("expected invalidResponse, got \(String(describing: outcome.error))")
      return
    }
    #expect(detail.contains("image/png"))
  }

  @Test("a file the store refuses fails the turn with the store's typed error and leaves nothing behind")
  func fileTooLargeForStore() async throws {
    let big = Data(onePixelPNG.dropLast(12)) + Data(count: 2_000) + Data(onePixelPNG.suffix(12))
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}, {"inlineData": {"mimeType": "image/png", "data": "\#(big.base64EncodedString())"}}]}, "finishReason": "STOP"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = try FileArtifactStore(directory: directory.url.appendingPathComponent("artifacts"),
                                  limits: .init(maxArtifactBytes: 1_000))
    let session = GenerativeModelSession(model: testModel(server), artifactStore: store)
    await #expect {
      _ = try await session.respond(to: try Prompt { "Edit"; try Attachment(data: onePixelPNG, name: "dot.png") })
    } throws: { error in
      guard case .artifactTooLarge(let size, let limit) = error as? ArtifactStoreError else { return false }
      return size == Int64(big.count) && limit == 1_000
    }
    #expect(store.allReferences().isEmpty, "the prompt's attachment is removed with the failed turn")
    #expect(session.transcript.entries.isEmpty)
  }

  @Test("asking for images: Gemini gets responseModalities; a text-only on-device model is routed around, or named in the error")
  func responseModalitiesRouting() async throws {
    let server = try await TestHTTPServer.start { request, _ in GeminiEchoReply.reply(to: request) }
    defer { Task { await server.stop() } }
    let options = GenerationOptions(responseModalities: [.text, .image])

    let hybrid = HybridModel(primary: stubOnDeviceModel(), secondary: testModel(server))
    let session = GenerativeModelSession(model: hybrid)
    let answer = try await session.respond(to: "Draw a cat.", options: options)
    #expect(answer.rawResponse.source == .cloud)
    #expect(answer.rawResponse.fallback?.reason == .unsupported(UnsupportedReason.unsupportedOutput(.image).description))
    let body = try jsonBody(try #require(server.requests.first))
    #expect(body["generationConfig"]?["responseModalities"] == .array(["TEXT", "IMAGE"]))

    await #expect {
      _ = try await GenerativeModelSession(model: stubOnDeviceModel()).respond(to: "Draw a cat.", options: options)
    } throws: { error in
      guard case .unsupportedRequest(.unsupportedOutput(.image)) = error as? GenerationError else { return false }
      return "\(error)".contains("image")
    }
  }
}
