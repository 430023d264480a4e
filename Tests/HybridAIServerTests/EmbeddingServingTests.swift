import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIOpenAI
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Embeddings served by `hybrid serve` (OpenAI's `/v1/embeddings`, Gemini's `:embedContent` and
/// `:batchEmbedContents`) and read by the clients (`OpenAIModel`, `GeminiModel`, the official Python
/// ones), each compared with the on-device model's own vectors; and the on-device vectors compared
/// with llama.cpp's own server's for the same file.
@Suite("Server: embeddings (real model)")
struct EmbeddingServingTests {
  static let texts = ["The sky is blue because air scatters blue light.", "Bread needs flour, water, salt and yeast.", "Hi"]

  /// The on-device model's own vectors for ``texts`` (the reference every path must reproduce).
  static func reference() async throws -> [Embedding] {
    try await SystemLanguageModel(modelPath: RunningTestServer.modelPath).embeddings(for: texts).embeddings
  }

  static func expectSame(_ vectors: [[Float]], _ reference: [Embedding], minimumSimilarity: Float = 0.9999,
                         _ what: String) {
    #expect(vectors.count == reference.count, "\(what): \(vectors.count) vectors")
    for (index, (vector, expected)) in zip(vectors, reference).enumerated() {
      #expect(vector.count == expected.dimensions, "\(what) \(index): \(vector.count) values")
      guard vector.count == expected.dimensions else { continue }
      let similarity = Embedding(values: vector).cosineSimilarity(to: expected)
      #expect(similarity > minimumSimilarity, "\(what) \(index): cosine similarity \(similarity)")
    }
  }

  @Test("openai and google-genai embed through hybrid serve: the on-device vectors (base64 and float), truncation, usage, typed errors")
  func officialClients() async throws {
    let python = TestRepository.python
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the API clients venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/embeddings_conformance.py")
    let server = try await RunningTestServer.start(apiKeys: ["embed-key"])
    defer { Task { await server.stop() } }
    let run = try await ChildProcess.run(python, [script.path, server.baseURL.absoluteString, RunningTestServer.modelName,
                                                  "embed-key"] + Self.texts)
    #expect(run.succeeded, "\(run.standardError)")
    let observed = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any],
                                "script output: \(run.output) \(run.standardError)")
    let reference = try await Self.reference()
    func section(_ key: String) throws -> [String: Any] {
      let value = try #require(observed[key] as? [String: Any], "\(key) missing")
      try #require(value["exception"] == nil && value["api_error"] == nil,
                   "\(key) failed: \(value["api_error"] ?? value["traceback"] ?? "")")
      return value
    }
    func vectors(_ value: [String: Any]) throws -> [[Float]] {
      try #require(value["vectors"] as? [[Double]]).map { $0.map(Float.init) }
    }
    func apiError(_ key: String) throws -> [String: Any] {
      try #require((observed[key] as? [String: Any])?["api_error"] as? [String: Any], "\(key) must fail: \(observed[key] ?? "")")
    }

    let base64 = try section("openai_default")
    Self.expectSame(try vectors(base64), reference, "openai, base64")
    #expect(base64["indexes"] as? [Int] == [0, 1, 2])
    #expect(base64["model"] as? String == RunningTestServer.modelName && base64["object"] as? String == "list")
    let tokens = reference.compactMap(\.tokenCount).reduce(0, +)
    #expect(base64["prompt_tokens"] as? Int == tokens && base64["total_tokens"] as? Int == tokens)
    Self.expectSame(try vectors(try section("openai_float")), [reference[0]], "openai, float")
    let short = try section("openai_dimensions")
    #expect(short["length"] as? Int == 64 && abs((short["norm"] as? Double ?? 0) - 1) < 1e-4)

    let empty = try apiError("openai_empty")
    #expect(empty["status"] as? Int == 400 && empty["param"] as? String == "input")
    #expect((empty["message"] as? String)?.contains("Text 2 of 2 is empty.") == true, "\(empty)")
    let tokenInput = try apiError("openai_tokens")
    #expect(tokenInput["status"] as? Int == 400 && tokenInput["param"] as? String == "input")
    #expect(try apiError("openai_unknown_model")["status"] as? Int == 404)
    let dimensions = try apiError("openai_too_many_dimensions")
    #expect(dimensions["status"] as? Int == 400 && dimensions["param"] as? String == "dimensions", "\(dimensions)")
    #expect(try apiError("openai_wrong_key")["status"] as? Int == 401)

    Self.expectSame(try vectors(try section("genai_many")), reference, "google-genai")
    let configured = try section("genai_configured")
    #expect(configured["length"] as? Int == 64 && abs((configured["norm"] as? Double ?? 0) - 1) < 1e-4)
    let methods = try section("genai_methods")["methods"] as? [String] ?? []
    #expect(methods.contains("embedContent") && methods.contains("batchEmbedContents"), "\(methods)")
    let badTask = try apiError("genai_bad_task")
    #expect(badTask["status"] as? Int == 400, "\(badTask)")
  }

  @Test("GeminiModel and OpenAIModel embed through hybrid serve: the on-device vectors, purpose and dimensions sent")
  func swiftClients() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let reference = try await Self.reference()
    let gemini = try await server.geminiModel().embeddings(for: Self.texts, purpose: .retrievalDocument)
    Self.expectSame(gemini.embeddings.map(\.values), reference, "GeminiModel")
    #expect(gemini.source == .cloud && gemini.modelVersion == RunningTestServer.modelName)
    let openAI = OpenAIModel(name: RunningTestServer.modelName, apiKey: nil, baseURL: server.baseURL.appendingPathComponent("v1"))
    let answer = try await openAI.embeddings(for: Self.texts)
    Self.expectSame(answer.embeddings.map(\.values), reference, "OpenAIModel")
    #expect(answer.modelVersion == RunningTestServer.modelName)
    #expect(answer.promptTokens == reference.compactMap(\.tokenCount).reduce(0, +))
    let short = try await server.geminiModel().embedding(for: Self.texts[0], dimensions: 32)
    #expect(short.dimensions == 32 && abs(short.magnitude - 1) < 1e-4)
    await #expect(throws: GenerationError.self) { _ = try await openAI.embeddings(for: ["fine", ""]) }
  }

  /// One text per request: llama-server (pinned) decodes the texts of one request in several slots
  /// at once, and then its vectors of all but the first differ from the same texts alone (cosine
  /// 0.96–0.99 on longer texts, measured 2026-11-28); one by one they are llama.cpp's reference.
  @Test("the on-device vectors are llama-server's own (--embeddings --pooling mean) for the same file, read by OpenAIModel")
  func sameAsLlamaServer() async throws {
    let llama = try await RunningLlamaServer.start(extraArguments: ["--embeddings", "--pooling", "mean"])
    defer { Task { await llama.stop() } }
    var theirs: [[Float]] = []
    for text in Self.texts { theirs.append(try await llama.openAIModel().embedding(for: text).values) }
    Self.expectSame(theirs, try await Self.reference(), minimumSimilarity: 0.99999, "llama-server")
  }

  @Test("Gemini calls that cannot be embedded are 400s naming the field; a model that does not embed says so")
  func geminiErrors() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let url = { (method: String) in URL(string: "\(server.baseURL.absoluteString)/v1beta/models/\(RunningTestServer.modelName):\(method)")! }
    func failure(_ method: String, _ body: [String: Any]) async throws -> (status: Int, message: String) {
      let reply = try await TestHTTP.send(.POST, url(method), json: body)
      let error = try reply.json["error"] as? [String: Any]
      return (reply.status, error?["message"] as? String ?? reply.text)
    }
    let text = ["parts": [["text": "hello"]]]
    let wrongModel = try await failure("batchEmbedContents", ["requests": [["model": "models/other", "content": text]]])
    #expect(wrongModel.status == 400 && wrongModel.message.contains("requests[0].model is models/other"), "\(wrongModel)")
    let image = try await failure("embedContent", ["content": ["parts": [["inlineData": ["mimeType": "image/png", "data": "AAAA"]]]]])
    #expect(image.status == 400 && image.message.contains("not text"), "\(image)")
    let none = try await failure("batchEmbedContents", ["requests": [Any]()])
    #expect(none.status == 400 && none.message.contains("requests is empty"), "\(none)")
    let tooMany = try await failure("batchEmbedContents", ["requests": Array(repeating: ["content": text], count: 101)])
    #expect(tooMany.status == 400 && tooMany.message.contains("at most 100"), "\(tooMany)")
    let dimensions = try await failure("embedContent", ["content": text, "outputDimensionality": 5000])
    #expect(dimensions.status == 400 && dimensions.message.contains("more than the model's 576"), "\(dimensions)")
    let emptyText = try await failure("embedContent", ["content": ["parts": [["text": ""]]]])
    #expect(emptyText.status == 400 && emptyText.message.contains("empty"), "\(emptyText)")
    let ok = try await TestHTTP.send(.POST, url("embedContent"), json: ["content": text, "outputDimensionality": 8])
    #expect(ok.status == 200, "\(ok.text)")
    #expect(((try ok.json["embedding"] as? [String: Any])?["values"] as? [Double])?.count == 8)

    let scripted = try await ScriptedServer.start(.served { _, _ in [.textDelta("Hi")] })
    defer { Task { await scripted.stop() } }
    let notEmbedding = try await TestHTTP.send(.POST, scripted.url("embedContent"), json: ["content": text])
    #expect(notEmbedding.status == 400 && notEmbedding.text.contains("does not embed"), "\(notEmbedding.text)")
  }
}
