import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice

/// Answers one question with a hybrid session: on device when the model file is there, else in
/// the cloud (Firebase AI Logic's "prefer on-device" mode). Prints the answer and who gave it.
///
///     HybridChat MODEL.gguf CLOUD-MODEL "question"     # $GEMINI_BASE_URL, $GEMINI_API_KEY for the cloud
@main
struct HybridChat {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 3 else {
      FileHandle.standardError.write(Data("usage: HybridChat MODEL.gguf CLOUD-MODEL QUESTION\n".utf8))
      exit(2)
    }
    let onDevice = SystemLanguageModel(modelPath: arguments[0])
    let cloud = GeminiModel(name: arguments[1])
    let session = GenerativeModelSession(model: .hybrid(primary: onDevice, secondary: cloud),
                                         instructions: "Answer in one sentence.")
    do {
      let response = try await session.respond(
        to: arguments[2], options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 16))
      print("answer: \(response.content)")
      let fallback = response.rawResponse.fallback.map { "; \($0)" } ?? ""
      print("model: \(response.rawResponse.modelVersion) (\(response.rawResponse.source)\(fallback))")
    } catch {
      FileHandle.standardError.write(Data("HybridChat: \(error)\n".utf8))
      exit(1)
    }
    await OnDeviceRuntime.shutDown()
  }
}
