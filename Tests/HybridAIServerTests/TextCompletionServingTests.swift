import Foundation
import HybridAI
import HybridAIGemini
@testable import HybridAIOnDevice
import HybridAIOpenAI
import HybridAIProcess
import HybridAITestSupport
import Testing

/// OpenAI's legacy text completions (`POST /v1/completions`) on the real model: the prompt continued
/// as it is (no chat template), checked with the official `openai` client against the on-device
/// model's own greedy continuation of the same text.
@Suite("Server: legacy text completions (real model)")
struct TextCompletionServingTests {
  static let prompt = "Once upon a time, in a small village by the sea,"

  /// The on-device model's greedy continuation of ``prompt`` read as plain text, and its prompt tokens.
  static func onDeviceContinuation(tokens: Int) async throws -> (text: String, promptTokens: Int) {
    let model = SystemLanguageModel(modelPath: RunningTestServer.modelPath)
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: tokens)
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: prompt, options: options))]),
                                    options: options, promptRendering: .plainText)
    var text = "", completion: RawResponse?
    for try await event in model.generate(request) {
      if case .textDelta(let delta) = event { text += delta }
      if case .completed(let raw) = event { completion = raw }
    }
    // The raw text's own tokens: a chat template would add its turn markers (and SmolLM2's its system prompt).
    let rawTokens = try await model.loadedWeights().tokenize(prompt, addSpecial: true, parseSpecial: true).count
    #expect(try #require(completion).usage.promptTokens == rawTokens)
    return (text, rawTokens)
  }

  @Test("the openai client: unary and streamed continue the text as it is (the on-device greedy continuation, its raw token count), several prompts × n, legacy logprobs, echo, max_tokens 16 by default, typed errors")
  func officialClient() async throws {
    let python = TestRepository.python
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the API clients venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/completions_conformance.py")
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let run = try await ChildProcess.run(python, [script.path, server.baseURL.absoluteString, RunningTestServer.modelName, Self.prompt])
    #expect(run.succeeded, "\(run.standardError)")
    let observed = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any],
                                "script output: \(run.output) \(run.standardError)")
    func section(_ key: String) throws -> [String: Any] {
      let value = try #require(observed[key] as? [String: Any], "\(key) missing")
      try #require(value["exception"] == nil && value["api_error"] == nil,
                   "\(key) failed: \(value["api_error"] ?? value["traceback"] ?? "")")
      return value
    }
    func apiError(_ key: String) throws -> [String: Any] {
      try #require((observed[key] as? [String: Any])?["api_error"] as? [String: Any], "\(key) must fail: \(observed[key] ?? "")")
    }
    let reference = try await Self.onDeviceContinuation(tokens: 8)

    let unary = try section("unary")
    #expect(unary["text"] as? String == reference.text, "no chat template: the same continuation as on device")
    #expect(unary["prompt_tokens"] as? Int == reference.promptTokens, "the raw text's tokens, no template tokens")
    #expect(unary["object"] as? String == "text_completion" && unary["model"] as? String == RunningTestServer.modelName)
    #expect((unary["id"] as? String)?.hasPrefix("cmpl-") == true && unary["completion_tokens"] as? Int == 8)
    #expect(unary["finish_reason"] as? String == "length")
    let streamed = try section("streamed")
    #expect(streamed["text"] as? String == reference.text && streamed["finish_reason"] as? String == "length")
    #expect(streamed["completion_tokens"] as? Int == 8)

    let several = try section("several")
    #expect(several["indexes"] as? [Int] == [0, 1, 2, 3], "\(several)")
    #expect((several["texts"] as? [String])?.allSatisfy { !$0.isEmpty } == true)
    #expect((several["completion_tokens"] as? Int ?? 0) >= 4)

    let logprobs = try section("logprobs")
    let tokens = try #require(logprobs["tokens"] as? [String])
    #expect(tokens.joined() == logprobs["text"] as? String && tokens.count == 6)
    #expect((logprobs["token_logprobs"] as? [Double])?.allSatisfy { $0 <= 0 } == true)
    let top = try #require(logprobs["top_logprobs"] as? [[String: Double]])
    #expect(top.count == 6 && top.allSatisfy { (1...2).contains($0.count) }, "\(top)")
    let offsets = try #require(logprobs["text_offset"] as? [Int])
    #expect(offsets.first == 0 && offsets == offsets.sorted())

    let echoed = try #require(try section("echo")["text"] as? String)
    #expect(echoed.hasPrefix(Self.prompt) && echoed.count > Self.prompt.count, "\(echoed)")
    let defaults = try section("default_length")
    #expect(defaults["completion_tokens"] as? Int == 16 && defaults["finish_reason"] as? String == "length", "\(defaults)")

    for (key, param) in [("suffix", "suffix"), ("tokens", "prompt"), ("echo_logprobs", "echo"), ("too_many_logprobs", "logprobs"),
                         ("zero_tokens", "max_tokens"), ("too_long", "prompt")] {
      let error = try apiError(key)
      #expect(error["status"] as? Int == 400 && error["param"] as? String == param, "\(key): \(error)")
    }
    #expect(try apiError("too_long")["code"] as? String == "context_length_exceeded")
  }

  @Test("cloud models report a text completion unsupported (they take conversations only)")
  func cloudModelsRefusePlainText() async throws {
    let options = GenerationOptions(maximumResponseTokens: 4)
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Hi", options: options))]),
                                    options: options, promptRendering: .plainText)
    let url = URL(string: "http://127.0.0.1:9")!
    for model in [GeminiModel(name: "m", apiKey: nil, baseURL: url) as any LanguageModel,
                  OpenAIModel(name: "m", apiKey: nil, baseURL: url)] {
      guard case .unsupported(.other(let reason)) = await model.supports(request) else {
        Issue.record("\(model.modelIdentifier) supports a text completion"); continue
      }
      #expect(reason.contains("on device only"))
      await #expect(throws: GenerationError.self) { for try await _ in model.generate(request) {} }
    }
  }
}
