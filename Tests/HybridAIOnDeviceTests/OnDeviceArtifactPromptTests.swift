import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Synchronization
import Testing

/// A tool's artifact with the real on-device model: the prompt the model decodes from — rendered
/// by its chat template and tokenized, read back from the tokens — carries the artifact's short
/// reference and never its bytes, base64 or location.
@Suite(.serialized) struct OnDeviceArtifactPromptTests {
  /// Bytes that would be easy to find in a prompt: a marker, binary noise, and the marker again.
  static let secret = Data("SECRET-PIXELS".utf8) + Data((0..<64).map { UInt8(($0 * 37) & 0xff) }) + Data("SECRET-PIXELS".utf8)

  /// Paints a picture (an artifact) without arguments, so the tiny model's call is short.
  struct PaintTool: Tool {
    typealias Arguments = GeneratedContent
    let name = "paint"
    let description = "Paints a picture for the user."
    let parameters = GenerationSchema(jsonSchema: ["type": "object", "properties": [:], "additionalProperties": false])
    func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
      ToolOutput("Painted.", artifacts: [Artifact(data: OnDeviceArtifactPromptTests.secret, mimeType: "image/png", name: "picture.png")])
    }
  }

  /// The on-device model, recording each request it answers.
  final class RecordingModel: LanguageModel {
    let base: SystemLanguageModel
    let requests = Mutex<[GenerationRequest]>([])
    init(_ base: SystemLanguageModel) { self.base = base }
    var modelIdentifier: String { base.modelIdentifier }
    var source: ModelSource { base.source }
    var availability: ModelAvailability { base.availability }
    func supports(_ request: GenerationRequest) async -> RequestSupport { await base.supports(request) }
    func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
      requests.withLock { $0.append(request) }
      return base.generate(request)
    }
  }

  @Test("the prompt after a tool call holds the artifact's reference line, not its bytes or path")
  func promptHoldsOnlyTheReference() async throws {
    let model = RecordingModel(try TestModel.requireModel())
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ArtifactStore(directory: directory)
    let session = GenerativeModelSession(
      model: model, tools: [PaintTool()], toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools),
      artifactStore: store)
    let response = try await session.respond(
      to: "Paint me a cat.",
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 60, toolChoice: .required(tools: ["paint"])))

    let artifact = try #require(response.artifacts.first)
    let fileURL = try #require(artifact.fileURL)
    #expect(try Data(contentsOf: fileURL) == Self.secret)

    let requests = model.requests.withLock { $0 }
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
