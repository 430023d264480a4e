import Foundation
import HybridAI
import HybridAIOpenAI

/// Asks a cloud model one question and prints the answer and who gave it.
///
///     CloudChat MODEL "question"      # $OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1), $OPENAI_API_KEY
@main
struct CloudChat {
  static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let name = arguments.first, let question = arguments.last else {
      FileHandle.standardError.write(Data("usage: CloudChat MODEL QUESTION (with $OPENAI_BASE_URL and $OPENAI_API_KEY)\n".utf8))
      exit(2)
    }
    let session = GenerativeModelSession(model: OpenAIModel(name: name), instructions: "Answer in one sentence.")
    do {
      let response = try await session.respond(
        to: question, options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 16))
      print("answer: \(response.content)")
      print("model: \(response.rawResponse.modelVersion) (\(response.rawResponse.source))")
    } catch {
      FileHandle.standardError.write(Data("CloudChat: \(error)\n".utf8))
      exit(1)
    }
  }
}
