import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Files in `hybrid serve`'s Gemini API: a served model's files go out as `inlineData` (and come
/// back through HybridAI's own client as artifacts with the same bytes); the models listing says
/// what each model takes and gives; asking a text-only model for images is a 400 naming the kind.
@Suite("Server: files in answers, modalities")
struct ServerFilesTests {
  /// A 1×1 PNG.
  static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

  static func imageMaker() -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: "painter", capabilities: ModelCapabilities(inputModalities: [.text], outputModalities: [.image]),
                          modelVersion: "painter-1", usage: Usage(promptTokens: 5, outputTokens: 3)) { _, _ in
      [.textDelta("Here:"), .artifact(Artifact(data: png, mimeType: "image/png", name: "dot.png")), .textDelta(" done.")]
    }
  }

  @Test("a served model's files stream as inlineData and come back through GeminiModel as artifacts with the same bytes")
  func filesStreamAsInlineData() async throws {
    let server = try await ScriptedServer.start(Self.imageMaker())
    defer { Task { await server.stop() } }
    let body = HTTP.generateBody("Draw a dot.", maxOutputTokens: 8)

    let unary = try await TestHTTP.send(.POST, server.url("generateContent"), json: body)
    #expect(unary.status == 200, "\(unary.text)")
    let candidate = try #require((try unary.json["candidates"] as? [[String: Any]])?.first)
    let parts = try #require((candidate["content"] as? [String: Any])?["parts"] as? [[String: Any]])
    #expect(parts.first?["text"] as? String == "Here: done.")
    let blob = try #require(parts.compactMap { $0["inlineData"] as? [String: Any] }.first)
    #expect(blob["mimeType"] as? String == "image/png")
    #expect(Data(base64Encoded: blob["data"] as? String ?? "") == Self.png)

    let streamed = try await TestHTTP.send(.POST, URL(string: server.url("streamGenerateContent").absoluteString + "?alt=sse")!, json: body)
    #expect(streamed.status == 200)
    #expect(streamed.text.contains(Self.png.base64EncodedString()))

    let client = GeminiModel(name: ScriptedServer.modelName, apiKey: nil, baseURL: server.baseURL)
    let outcome = await GenerationOutcome.collect(client.generate(GenerationRequest(
      transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: "Draw a dot."))]), options: GenerationOptions())))
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    #expect(outcome.text == "Here: done.")
    #expect(outcome.artifacts.map(\.data) == [Self.png])
  }

  @Test("GET models lists each served model's input and output modalities")
  func modalitiesListed() async throws {
    let server = try await ScriptedServer.start(Self.imageMaker())
    defer { Task { await server.stop() } }
    let one = try await TestHTTP.send(.GET, URL(string: "\(server.baseURL.absoluteString)/v1beta/models/\(ScriptedServer.modelName)")!)
    #expect(try one.json["inputModalities"] as? [String] == ["TEXT"])
    #expect(try one.json["outputModalities"] as? [String] == ["TEXT", "IMAGE"])
  }

  @Test("asking a text-only served model for images is 400 INVALID_ARGUMENT naming the kind, never an empty answer")
  func imagesFromTextOnlyModel() async throws {
    let server = try await ScriptedServer.start(ScriptedLanguageModel.served { _, _ in [.textDelta("text only")] })
    defer { Task { await server.stop() } }
    let reply = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [["role": "user", "parts": [["text": "Draw a cat."]]]],
      "generationConfig": ["responseModalities": ["TEXT", "IMAGE"]],
    ])
    #expect(reply.status == 400, "\(reply.text)")
    #expect(reply.errorStatus == "INVALID_ARGUMENT")
    #expect(reply.errorMessage?.contains("image") == true, "\(reply.text)")
    #expect(server.model.requestCount == 0)

    let unknown = try await TestHTTP.send(.POST, server.url("generateContent"), json: [
      "contents": [["role": "user", "parts": [["text": "Hi"]]]],
      "generationConfig": ["responseModalities": ["SMELL"]],
    ])
    #expect(unknown.status == 400 && unknown.errorMessage?.contains("SMELL") == true, "\(unknown.text)")
  }
}
