import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAITestSupport
import HybridAITools
import TFLiteImage
import Testing

private typealias Attachment = HybridAI.Attachment

/// "Cut me out of this photo": a tool gets the user's attachment by the name the model gives it,
/// through `ToolContext`, and returns the mask as an artifact.
@Suite("Tools on the conversation's attachments")
struct ToolsOnAttachmentsTests {
  /// A text model that calls `segment_person` on `argument`, then answers "Done.".
  private func segmentingModel(_ argument: String) -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: "text-only") { _, index in
      index == 0
        ? [.toolCalls([Transcript.ToolCall(id: "call-1", toolName: "segment_person",
                                           arguments: try! GeneratedContent(json: #"{"path": "\#(argument)"}"#))])]
        : [.textDelta("Done.")]
    }
  }

  private func session(_ model: ScriptedLanguageModel, store: any ArtifactStore, readable directory: URL) throws -> GenerativeModelSession {
    let tool = SegmentPersonTool(modelPath: try ToolTestSupport.selfieSegmentationModelPath(),
                                 allowedDirectories: [directory], logger: ToolTestSupport.quietLogger)
    return GenerativeModelSession(model: model, tools: [tool], artifactStore: store)
  }

  @Test("the model names the attached photo; segment_person reads it from the store and returns the mask; a text model reads the reference only when asked to",
        arguments: ["astronaut.png", "id", "reference"])
  func segmentAttachedPhoto(_ naming: String) async throws {
    let photo = TestRepository.photo
    try #require(FileManager.default.fileExists(atPath: photo.path), "photo missing at \(photo.path): run scripts/bootstrap")
    let directory = try ToolTestSupport.temporaryDirectory()   // the tool may read nothing else: the photo is not in it
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory.appendingPathComponent("store"))
    let attachment = try Attachment(contentsOf: photo)

    // Without the option, the text-only model does not take the photo: a typed error naming its kind.
    let refusing = try session(segmentingModel("astronaut.png"), store: store, readable: directory.appendingPathComponent("none"))
    await #expect {
      _ = try await refusing.respond(to: Prompt { "Cut me out of this photo."; attachment })
    } throws: { error in
      guard case .unsupportedRequest(.unsupportedInput("image/png")) = error as? GenerationError else { return false }
      return true
    }

    // Stored first, so the model's argument can name the id or the reference it was shown.
    let stored = try store.store(Artifact(fileAt: photo, mimeType: "image/png", name: "astronaut.png"))
    let argument = switch naming {
    case "id": stored.id
    case "reference": stored.modelDescription.replacingOccurrences(of: "\"", with: "\\\"")
    default: "astronaut.png"
    }
    let model = segmentingModel(argument)
    let session = try session(model, store: store, readable: directory.appendingPathComponent("none"))
    let response = try await session.respond(to: Prompt { "Cut me out of this photo."; try Attachment(artifact: stored) },
                                             options: GenerationOptions(unreadableAttachments: .reference))
    #expect(response.content == "Done.")
    let mask = try #require(response.artifacts.first)
    #expect(mask.name == "astronaut-mask.png")
    #expect(mask.mimeType == "image/png")
    let bitmap = try Bitmap(contentsOf: try #require(mask.fileURL))
    #expect(bitmap.width == 512 && bitmap.height == 512, "the mask has the photo's size")
    // The model read the photo's reference, never its bytes.
    let firstPrompt = try #require(model.requests.first?.transcript.entries.last)
    guard case .prompt(let prompt) = firstPrompt else { Issue.record("no prompt"); return }
    #expect(prompt.segments.attachments.map(\.reference.id) == [stored.id])
    let output = try #require(session.transcript.entries.compactMap { entry -> Transcript.ToolOutput? in
      if case .toolOutput(let output) = entry { output } else { nil }
    }.first)
    #expect(!output.isError, "\(Transcript.Entry.toolOutput(output).text)")
    #expect(Transcript.Entry.toolOutput(output).text.contains("% person"))
  }

  @Test("a name that is no file of this conversation is not looked up in the store: it is only a path in the allowed directory")
  func otherFilesAreNotReachable() async throws {
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory.appendingPathComponent("store"))
    let elsewhere = try store.store(Artifact(data: try Bitmap.samplePortrait(width: 16, height: 16).pngData(),
                                             mimeType: "image/png", name: "someone-else.png"))
    let session = try session(segmentingModel(elsewhere.id), store: store, readable: directory.appendingPathComponent("none"))
    let response = try await session.respond(to: "Cut me out of someone-else.png.")   // a conversation without pictures
    let output = try #require(session.transcript.entries.compactMap { entry -> Transcript.ToolOutput? in
      if case .toolOutput(let output) = entry { output } else { nil }
    }.first)
    #expect(output.isError)
    #expect(Transcript.Entry.toolOutput(output).text.contains("/none/\(elsewhere.id)"), "\(Transcript.Entry.toolOutput(output).text)")
    #expect(Transcript.Entry.toolOutput(output).text.contains("doesn’t exist"))
    #expect(response.artifacts.isEmpty)
  }

  @Test("an argument that names nothing falls back to the conversation's newest picture, and the output says so")
  func newestPictureWhenTheNameIsWrong() async throws {
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory.appendingPathComponent("store"))
    let portrait = try Bitmap.samplePortrait(width: 40, height: 30).pngData()
    let session = try session(segmentingModel("the picture"), store: store, readable: directory.appendingPathComponent("none"))
    let response = try await session.respond(to: Prompt { "Cut me out."; try Attachment(data: portrait, name: "me.png") },
                                             options: GenerationOptions(unreadableAttachments: .reference))
    let mask = try #require(response.artifacts.first)
    #expect(mask.name == "me-mask.png")
    let output = try #require(session.transcript.entries.compactMap { entry -> Transcript.ToolOutput? in
      if case .toolOutput(let output) = entry { output } else { nil }
    }.first)
    #expect(Transcript.Entry.toolOutput(output).text.contains("'the picture' names no file; used the conversation's newest picture, me.png"))
  }
}
