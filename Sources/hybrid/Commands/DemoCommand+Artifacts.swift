import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIOnDevice
import HybridAITools
import HybridCommandLine

/// The artifacts step: a tool that makes a file (speech, with espeak-ng); the model sees only a
/// short reference, the response carries the file.
extension DemoCommand {
  func tourArtifacts(_ model: SystemLanguageModel) async -> Bool {
    heading("13. Artifacts: the model asks `speak` for audio; the WAV comes back on the response, never into the prompt")
    let directory = URL(fileURLWithPath: ".build/demo/artifacts", isDirectory: true)
    try? FileManager.default.removeItem(at: directory)
    do {
      let store = try FileArtifactStore(directory: directory)
      let session = GenerativeModelSession(
        model: model, tools: [SpeakTool()], instructions: "Use the speak tool to say things aloud.",
        toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools), artifactStore: store)
      Terminal.write("  you> Say hello to the world, out loud.\n")
      // The typed events of one request: the model chosen, tool progress, the artifact, the text.
      let stream = session.streamResponse(
        to: "Say hello to the world, out loud.",
        options: Self.onDeviceOptions(maximumResponseTokens: 60, toolChoice: .required(tools: ["speak"])))
      var response: GenerativeModelSession.Response<String>?
      var answerStarted = false
      var announcedModel: String?
      for try await event in stream.events {
        switch event {
        case .modelSelected(let model, let fallback):   // once per model round; shown when it changes
          if model != announcedModel { Terminal.write("    ↳ [model] \(model)" + (fallback.map { " (\($0))" } ?? "") + "\n") }
          announcedModel = model
        case .toolStarted(let name, _):
          Terminal.write("    ↳ [\(name)] started\n")
        case .toolProgress(_, let fraction, let message):
          Terminal.write(String(format: "    ↳ [speak] %3.0f%% %@\n", fraction * 100, message))
        case .artifactCreated(_, let reference), .generatedArtifact(let reference):
          Terminal.write("    ↳ [artifact] \(reference.modelDescription)\n")
        case .toolFinished(_, let isError):
          Terminal.write("    ↳ [speak] \(isError ? "failed" : "finished")\n")
        case .textDelta(let text):
          if !answerStarted { Terminal.write("  ai> ") }
          answerStarted = true
          Terminal.write(text)
        case .partialContent:
          break
        case .completed(let completed):
          response = completed
        }
      }
      if answerStarted { Terminal.write("\n") }
      guard let response else { throw CancellationError() }
      for line in DemoTools.callLines(response.transcriptEntries) { Terminal.write("    ↳ [tool] \(line)\n") }
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
