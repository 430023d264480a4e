import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport

/// Retries fast enough for tests.
let fastRetries = GeminiModel.RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))

/// A Gemini model pointed at a test server.
func testModel(_ server: TestHTTPServer, name: String = "test-model", apiKey: String? = "test-key",
               retryPolicy: GeminiModel.RetryPolicy = fastRetries) -> GeminiModel {
  GeminiModel(name: name, apiKey: apiKey, baseURL: server.baseURL,
              configuration: GeminiModel.Configuration(connectTimeout: .seconds(30), readTimeout: .seconds(120),
                                                       retryPolicy: retryPolicy))
}

/// A Gemini model pointed at `url`.
func testModel(url: String, connectTimeout: Duration = .seconds(30)) -> GeminiModel {
  GeminiModel(name: "test-model", apiKey: nil, baseURL: URL(string: url)!,
              configuration: GeminiModel.Configuration(connectTimeout: connectTimeout, retryPolicy: .none))
}

/// A one-prompt generation request.
func request(_ prompt: String = "Hello", options: GenerationOptions = GenerationOptions()) -> GenerationRequest {
  GenerationRequest(transcript: Transcript(entries: [.prompt(Transcript.Prompt(text: prompt))]), options: options)
}

/// What a generation produced (see ``GenerationOutcome``).
typealias Outcome = GenerationOutcome

extension GenerationOutcome {
  var geminiError: GeminiError? { error as? GeminiError }
}

/// Runs a generation to its end.
func run(_ model: some LanguageModel, _ request: GenerationRequest) async -> Outcome {
  await GenerationOutcome.collect(model.generate(request))
}

/// The JSON body of a recorded request, read with the core's `JSONValue`.
func jsonBody(_ request: TestHTTPServer.Request) throws -> JSONValue {
  try JSONDecoder().decode(JSONValue.self, from: request.body)
}

/// A stand-in on-device model for hybrid-routing tests: answers "on-device answer".
func stubOnDeviceModel() -> ScriptedLanguageModel {
  ScriptedLanguageModel(identifier: "stub-on-device", deltas: ["on-device answer"], modelVersion: "stub-on-device",
                        usage: Usage(promptTokens: 1, outputTokens: 3))
}
