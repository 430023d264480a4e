import Foundation
import HybridAI
import HybridAIFileStorage
@testable import HybridAIOnDevice
import HybridAITestSupport
import Synchronization
import Testing

/// A tool's artifact with the real on-device model: the prompt the model decodes from — rendered
/// by its chat template and tokenized, read back from the tokens — carries the artifact's short
/// reference and never its bytes, base64 or location.
@Suite(.serialized) struct OnDeviceArtifactPromptTests {
  /// Bytes that would be easy to find in a prompt: a marker, binary noise, and the marker again.
  static let secret = Data("SECRET-PIXELS".utf8) + Data((0..<64).map { UInt8(($0 * 37) & 0xff) }) + Data("SECRET-PIXELS".utf8)

  /// Paints a picture (an artifact) without arguments, so the tiny model's call is short.
  @Test("the prompt after a tool call holds the artifact's reference line, not its bytes or path")
  func promptHoldsOnlyTheReference() async throws {
    let model = ObservedLanguageModel(try TestModel.requireModel())
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let session = GenerativeModelSession(
      model: model, tools: [RecordingTool.painter(returning: Self.secret)], toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools),
      artifactStore: store)
    let response = try await session.respond(
      to: "Paint me a cat.",
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 60, toolChoice: .required(tools: ["paint"])))

    let artifact = try #require(response.artifacts.first)
    let fileURL = try #require(artifact.fileURL)
    #expect(try Data(contentsOf: fileURL) == Self.secret)

    let requests = model.requests
    #expect(requests.count == 2, "one round with the call, one answer")
    let prompt = try await model.base.promptText(for: try #require(requests.last))
    // Tool results are rendered as JSON inside <tool_response>, so the line's quotes are escaped.
    for made in response.artifacts {
      let line = made.modelDescription.replacingOccurrences(of: "\"", with: "\\\"")
      #expect(prompt.contains(line), "the model reads the reference line \(line)")
    }
    #expect(prompt.contains("Painted."))
    for forbidden in ["SECRET-PIXELS", Self.secret.base64EncodedString(), String(Self.secret.base64EncodedString().prefix(16)),
                      directory.path, fileURL.absoluteString, "file://"] {
      #expect(!prompt.contains(forbidden), "the prompt holds \(forbidden)")
    }
  }
}
