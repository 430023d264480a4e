import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIGemini
@testable import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// A tool's artifact in a `GeminiModel` session whose model is `hybrid serve`: neither the wire
/// request nor the prompt the server's on-device model decodes from carries the artifact's bytes,
/// base64 or location — only its reference line.
@Suite("Server: artifacts never reach the prompt", .serialized)
struct ArtifactPromptTests {
  static let secret = Data("SECRET-PIXELS".utf8) + Data((0..<64).map { UInt8(($0 * 41) & 0xff) }) + Data("SECRET-PIXELS".utf8)

  @Test("the function response on the wire and the server model's prompt hold the reference, not the bytes")
  func serverNeverSeesBytes() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ArtifactPromptTests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let cloud = server.geminiModel()
    let session = GenerativeModelSession(
      model: cloud, tools: [RecordingTool.painter(returning: Self.secret)], toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools),
      artifactStore: store)
    var options = GenerationOptions.gemini(GenerationConfig(temperature: 0, topK: 1, maxOutputTokens: 60))
    options.toolChoice = .required(tools: ["paint"])
    let response = try await session.respond(to: "Paint me a cat.", options: options)

    let artifact = try #require(response.artifacts.first)
    let fileURL = try #require(artifact.fileURL)
    let forbidden = ["SECRET-PIXELS", Self.secret.base64EncodedString(), String(Self.secret.base64EncodedString().prefix(16)),
                     directory.path, fileURL.absoluteString, "file://"]

    // What went over the wire: the second request's functionResponse.
    let wire = server.log.requests.withLock { $0 }
    #expect(wire.count == 2)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes   // so that paths would show as they are
    let wireJSON = String(decoding: try encoder.encode(try #require(wire.last)), as: UTF8.self)
    #expect(wireJSON.contains(artifact.id))
    // What the server's model decoded from.
    let received = try #require(server.model.requests.last)
    let prompt = try await server.model.base.promptText(for: received)
    // Tool results are rendered as JSON inside <tool_response>, so the line's quotes are escaped.
    for made in response.artifacts {
      let line = made.modelDescription.replacingOccurrences(of: "\"", with: "\\\"")
      #expect(prompt.contains(line), "the server's model reads the reference line \(line)")
    }
    for text in forbidden {
      #expect(!wireJSON.contains(text), "the request on the wire holds \(text)")
      #expect(!prompt.contains(text), "the server model's prompt holds \(text)")
    }
  }
}
