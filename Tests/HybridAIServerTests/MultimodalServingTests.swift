import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import Testing

/// `hybrid serve` with a model and its projector: an image sent with OpenAI's and Google's official
/// clients is answered on device with the tokens llama.cpp's `llama-mtmd-cli` gives; a remote URL
/// is a clear 400 (the server never fetches URLs for the on-device model).
@Suite("Serving images to an on-device model with the official clients")
struct MultimodalServingTests {
  static let pair = TestRepository.dependency("models/pairs/vision")
  static let photo = TestRepository.dependency("photos/astronaut.png")

  @Test("openai (image_url data: URL, unary and streamed) and google-genai (inlineData) get llama-mtmd-cli's answer; remote files are 400s")
  func officialClients() async throws {
    let model = Self.pair.appendingPathComponent("model.gguf").path
    let projector = Self.pair.appendingPathComponent("mmproj.gguf").path
    let batched = BatchedLanguageModel(modelPath: model, configuration: .init(
      maxConcurrentSequences: 2, contextSizePerSequence: 1024, projectorPath: projector))
    let served = ServedModel(name: "smolvlm", model: batched, contextSize: 1024, embedder: nil)
    let server = try await RunningServer.start([GeminiCompatibleAPI(models: [served]), OpenAICompatibleAPI(models: [served])],
                                               configuration: ServerConfiguration(maxRequestBytes: 8 << 20))
    defer { Task { await server.stop(); await batched.shutDown() } }

    // Both model lists say the model reads images.
    let openAIModels = try await TestHTTP.send(.GET, URL(string: server.baseURL.absoluteString + "/v1/models")!)
    let listed = try #require((try openAIModels.json["data"] as? [[String: Any]])?.first, "\(openAIModels.text)")
    let architecture = listed["architecture"] as? [String: [String]]
    #expect(architecture?["input_modalities"] == ["text", "image"] && architecture?["output_modalities"] == ["text"],
            "OpenAI's list: \(openAIModels.text)")
    let geminiModel = try await TestHTTP.send(.GET, URL(string: server.baseURL.absoluteString + "/v1beta/models/smolvlm")!)
    #expect(try geminiModel.json["inputModalities"] as? [String] == ["TEXT", "IMAGE"], "Gemini's model: \(geminiModel.text)")

    let expected = try await MultimodalReference.answerText(model: model, projector: projector, image: Self.photo.path)

    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/media_conformance.py")
    let run = try await ChildProcess.run(TestRepository.python, [script.path, server.baseURL.absoluteString, "smolvlm", Self.photo.path])
    #expect(run.succeeded, "\(run.standardError)")
    let output: String = run.output
    let observed = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
    for key in ["openai", "openai_stream", "gemini"] {
      let answer = observed[key] as? [String: Any] ?? [:]
      let text = answer["text"] as? String
      #expect(text == expected, "\(key): \(answer); llama-mtmd-cli: \(expected.debugDescription)")
    }
    for key in ["openai", "gemini"] {
      let promptTokens = (observed[key] as? [String: Any])?["prompt_tokens"] as? Int ?? 0
      #expect(promptTokens > 40, "\(key): the image's places count as prompt tokens")
    }
    let byModality = (observed["gemini"] as? [String: Any])?["by_modality"] as? [String: Int] ?? [:]
    #expect(byModality["IMAGE"] == 20 && (byModality["TEXT"] ?? 0) > 0, "promptTokensDetails by modality: \(byModality)")
    // A PNG whose pixels are garbage, to both APIs: a 400 naming it; the server answers the next request.
    var corrupt = try Data(contentsOf: Self.photo)
    corrupt.replaceSubrange(1000..<5000, with: Data(count: 4000))
    let gemini = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1beta/models/smolvlm:generateContent")!, json: [
      "contents": [["role": "user", "parts": [["text": "Describe."], ["inlineData": ["mimeType": "image/png", "data": corrupt.base64EncodedString()]]]]],
    ])
    #expect(gemini.status == 400 && gemini.text.contains("Unreadable media"), "\(gemini.status) \(gemini.text)")
    let openAI = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1/chat/completions")!, json: [
      "model": "smolvlm", "messages": [["role": "user", "content": [
        ["type": "text", "text": "Describe."], ["type": "image_url", "image_url": ["url": "data:image/png;base64," + corrupt.base64EncodedString()]],
      ]]],
    ])
    #expect(openAI.status == 400 && openAI.text.contains("Unreadable media"), "\(openAI.status) \(openAI.text)")
    let after = try await TestHTTP.send(.POST, URL(string: server.baseURL.absoluteString + "/v1/chat/completions")!, json: [
      "model": "smolvlm", "max_tokens": 2, "messages": [["role": "user", "content": "Hi"]],
    ])
    #expect(after.status == 200, "the server stays up: \(after.text)")
    for key in ["openai_remote", "gemini_file_uri"] {
      let error = (observed[key] as? [String: Any])?["api_error"] as? [String: Any] ?? [:]
      let status = error["status"] as? Int
      #expect(status == 400, "\(key): \(String(describing: observed[key]))")
    }
  }
}
