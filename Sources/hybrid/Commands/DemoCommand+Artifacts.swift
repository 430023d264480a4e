import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAITools

/// The artifacts step: a tool that makes a file (speech, with espeak-ng); the model sees only a
/// short reference, the response carries the file.
extension DemoCommand {
  func tourArtifacts(_ model: SystemLanguageModel) async -> Bool {
    heading("13. Artifacts: the model asks `speak` for audio; the WAV comes back on the response, never into the prompt")
    let directory = URL(fileURLWithPath: ".build/demo/artifacts", isDirectory: true)
    try? FileManager.default.removeItem(at: directory)
    do {
      let store = try ArtifactStore(directory: directory)
      let session = GenerativeModelSession(
        model: model, tools: [SpeakTool()], instructions: "Use the speak tool to say things aloud.",
        toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools), artifactStore: store)
      let events = session.toolEvents
      let activity = Task {
        for await event in events {
          switch event {
          case .progress(_, let fraction, let message):
            Terminal.write(String(format: "    ↳ [speak] %3.0f%% %@\n", fraction * 100, message))
          case .artifactCreated(_, let reference):
            Terminal.write("    ↳ [artifact] \(reference.modelDescription)\n")
          default:
            break
          }
        }
      }
      Terminal.write("  you> Say hello to the world, out loud.\n")
      let response = try await session.respond(
        to: "Say hello to the world, out loud.",
        options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 60, toolChoice: .required(tools: ["speak"])))
      activity.cancel()
      for line in DemoTools.callLines(response.transcriptEntries) { Terminal.write("    ↳ [tool] \(line)\n") }
      Terminal.write("  ai> \(response.content)\n")
      guard let speech = response.artifacts.first, let url = speech.fileURL else {
        Terminal.write("    ↳ error: no artifact on the response\n")
        return false
      }
      let info = try WAVInfo(data: Data(contentsOf: url))
      Terminal.write(String(format: "  %@: %@, %d bytes, %.2f s of %d Hz audio\n",
                            speech.name, url.path, Int(speech.size), info.duration, info.sampleRate))
      return info.duration > 0
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      return false
    }
  }
}
