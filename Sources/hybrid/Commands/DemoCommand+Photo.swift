import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIOnDevice
import HybridAITools
import HybridCommandLine

/// The photo step: a real photo attached to a prompt. The on-device model reads text only, so the
/// request is routed by its kind (a typed error when only on-device may answer); asked to, the
/// text model hands the photo by name to `segment_person`, which reads it from the session's
/// store and returns the mask.
extension DemoCommand {
  /// The bootstrap's photo (scikit-image's astronaut.png, NASA, public domain).
  static var photoPath: String {
    (ProcessInfo.processInfo.environment["HYBRIDAI_DEPS_DIR"] ?? ".deps") + "/photos/astronaut.png"
  }

  func tourPhoto(_ model: SystemLanguageModel) async -> Bool {
    heading("14. A photo: attached to a prompt, routed by its kind, cut out by a tool that reads it by name")
    let directory = URL(fileURLWithPath: ".build/demo/photo", isDirectory: true)
    try? FileManager.default.removeItem(at: directory)
    do {
      let photo = try Attachment(contentsOf: URL(fileURLWithPath: Self.photoPath).standardizedFileURL)
      Terminal.write("  attachment: \(photo.name), \(photo.mimeType) (sniffed from its bytes), \(photo.size) bytes\n")

      Terminal.write("\n  [only on-device] you> What is in this photo? [\(photo.name)]\n")
      do {
        _ = try await GenerativeModelSession(model: model).respond(to: Prompt { "What is in this photo?"; photo })
        Terminal.write("    ↳ error: a text-only model answered a photo\n")
        return false
      } catch let error as GenerationError {
        Terminal.write("    ↳ typed error, nothing dropped: \(error)\n")
      }

      let store = try FileArtifactStore(directory: directory)
      let segment = SegmentPersonTool(modelPath: BootstrapTFLiteModels.path("selfie_segmentation"), allowedDirectories: [directory])
      let session = GenerativeModelSession(
        model: model, tools: [segment], instructions: "Use the segment_person tool on pictures.",
        toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools), artifactStore: store)
      Terminal.write("\n  [only on-device, the photo as a reference for tools] you> Cut me out of \(photo.name).\n")
      let response = try await session.respond(
        to: Prompt { "Cut me out of \(photo.name)."; photo },
        options: Self.onDeviceOptions(maximumResponseTokens: 60,
                                   toolChoice: .required(tools: ["segment_person"]), unreadableAttachments: .reference))
      for line in DemoTools.callLines(response.transcriptEntries) { Terminal.write("    ↳ [tool] \(line)\n") }
      Terminal.write("  ai> \(response.content)\n")
      guard let mask = response.artifacts.first, let url = mask.fileURL else {
        Terminal.write("    ↳ error: no mask on the response\n")
        return false
      }
      Terminal.write("  \(mask.name): \(url.path), \(mask.size) bytes, \(mask.mimeType)\n")
      return true
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      return false
    }
  }
}
