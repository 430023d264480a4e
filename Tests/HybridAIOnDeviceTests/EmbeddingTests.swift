import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// On-device embeddings (`SystemLanguageModel.embeddings(for:)`) on the real model: shapes, unit
/// length, batching, pooling, truncation, the typed errors and cancellation. That the vectors are
/// llama.cpp's own is checked against llama-server in HybridAIServerTests' EmbeddingServingTests.
@Suite("On-device embeddings")
struct EmbeddingTests {
  static let texts = ["The sky is blue because air scatters blue light.", "Bread needs flour, water, salt and yeast.",
                      "Rayleigh scattering", "x"]

  @Test("one unit-length vector per text, the model's width, its tokens counted")
  func shapes() async throws {
    let model = try TestModel.requireModel()
    let response = try await model.embeddings(for: Self.texts)
    let weights = try await model.loadedWeights()
    #expect(response.embeddings.count == Self.texts.count)
    #expect(response.modelVersion == model.modelIdentifier && response.source == .onDevice)
    #expect(try await model.embeddingDimensions == 576)   // SmolLM2-135M's hidden size
    for (text, embedding) in zip(Self.texts, response.embeddings) {
      #expect(embedding.dimensions == 576)
      #expect(abs(embedding.magnitude - 1) < 1e-4, "\(embedding.magnitude)")
      #expect(embedding.values.allSatisfy { $0.isFinite })
      let tokens = try weights.tokenize(text, addSpecial: true, parseSpecial: false)
      #expect(embedding.tokenCount == tokens.count)
    }
    #expect(response.promptTokens == response.embeddings.compactMap(\.tokenCount).reduce(0, +))
    // Different texts, different vectors; each closest to itself.
    let similarities = response.embeddings.map { response.embeddings[0].cosineSimilarity(to: $0) }
    #expect(abs(similarities[0] - 1) < 1e-5)
    #expect(similarities.dropFirst().allSatisfy { $0 < 0.999 }, "\(similarities)")
  }

  @Test("texts embedded together equal each embedded alone, in order; the same text twice, the same vector")
  func batchedEqualsAlone() async throws {
    let model = try TestModel.requireModel()
    let together = try await model.embeddings(for: Self.texts + [Self.texts[0]]).embeddings
    for (index, text) in Self.texts.enumerated() {
      let alone = try await model.embedding(for: text)
      #expect(alone.cosineSimilarity(to: together[index]) > 0.9999, "text \(index)")
      #expect(alone.tokenCount == together[index].tokenCount)
    }
    #expect(together[0].cosineSimilarity(to: together[Self.texts.count]) > 0.9999)
  }

  @Test("more texts than one decode takes (64) and than its tokens: split over several decodes, order kept")
  func manyTexts() async throws {
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, batchSize: 64))
    let texts = (0..<70).map { "Item number \($0) of a long list." }
    let all = try await model.embeddings(for: texts).embeddings
    #expect(all.count == 70)
    for index in [0, 5, 63, 64, 69] {
      let alone = try await model.embedding(for: texts[index])
      #expect(alone.cosineSimilarity(to: all[index]) > 0.9999, "text \(index)")
    }
  }

  @Test("dimensions keeps the first values, scaled to unit length")
  func truncation() async throws {
    let model = try TestModel.requireModel()
    let whole = try await model.embedding(for: Self.texts[0])
    let short = try await model.embedding(for: Self.texts[0], dimensions: 64)
    #expect(short.dimensions == 64 && abs(short.magnitude - 1) < 1e-4)
    let scale = Array(whole.values.prefix(64)).reduce(0) { $0 + $1 * $1 }.squareRoot()
    for index in 0..<64 { #expect(abs(short.values[index] - whole.values[index] / scale) < 1e-5) }
    #expect(try await model.embedding(for: Self.texts[0], dimensions: 576) == whole)
  }

  @Test("pooling: the first token's state is the same for texts that start alike (causal model); the mean and last differ")
  func pooling() async throws {
    func model(_ pooling: EmbeddingPooling) -> SystemLanguageModel {
      SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, pooling: pooling))
    }
    let texts = ["Hello world, how are you?", "Hello there, general."]
    let first = try await model(.firstToken).embeddings(for: texts).embeddings
    #expect(first[0].cosineSimilarity(to: first[1]) > 0.9999, "the first token sees only itself")
    let mean = try await model(.mean).embeddings(for: texts).embeddings
    let automatic = try await model(.automatic).embeddings(for: texts).embeddings
    #expect(mean == automatic, "a chat model states no pooling: automatic means the mean")
    #expect(mean[0].cosineSimilarity(to: mean[1]) < 0.999)
    let last = try await model(.lastToken).embeddings(for: texts).embeddings
    #expect(last[0].cosineSimilarity(to: mean[0]) < 0.999)
  }

  @Test("bad requests are typed errors before any work")
  func badRequests() async throws {
    let model = try TestModel.requireModel()
    func problem(_ request: EmbeddingRequest) async -> String? {
      do {
        _ = try await model.embeddings(for: request)
        return nil
      } catch let error as GenerationError {
        guard case .unsupportedRequest(.other(let text)) = error else { return "unexpected: \(error)" }
        return text
      } catch {
        return "unexpected: \(error)"
      }
    }
    #expect(await problem(EmbeddingRequest(texts: [])) == "there is no text to embed")
    #expect(await problem(EmbeddingRequest(texts: ["a", ""])) == "text 2 of 2 is empty")
    #expect(await problem(EmbeddingRequest(texts: ["a"], dimensions: 0)) == "dimensions must be at least 1 (got 0)")
    #expect(await problem(EmbeddingRequest(texts: ["a"], dimensions: 577)) == "dimensions 577 is more than the model's 576")
  }

  @Test("a text longer than one batch is exceededContextWindowSize, naming both counts")
  func tooLong() async throws {
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, batchSize: 32))
    #expect(try await model.embeddingInputLimit == 32)
    let long = String(repeating: "word ", count: 40)
    let tokens = try await model.loadedWeights().tokenize(long, addSpecial: true, parseSpecial: false).count
    await #expect(throws: GenerationError.exceededContextWindowSize(promptTokens: tokens, contextSize: 32)) {
      _ = try await model.embeddings(for: ["short", long])
    }
    #expect(try await model.embedding(for: "short").dimensions == 576, "the embedder still works")
  }

  @Test("an unavailable model says why")
  func unavailable() async throws {
    let disabled = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(isEnabled: false))
    await #expect(throws: GenerationError.modelUnavailable(.disabled, detail: "disabled by the app's configuration")) {
      _ = try await disabled.embedding(for: "hi")
    }
    let missing = SystemLanguageModel(modelPath: "/nonexistent/model.gguf")
    do {
      _ = try await missing.embedding(for: "hi")
      Issue.record("a missing file embedded")
    } catch let error as GenerationError {
      guard case .modelUnavailable(.modelNotReady, let detail) = error else { Issue.record("\(error)"); return }
      #expect(detail.contains("/nonexistent/model.gguf"))
    }
  }

  @Test("cancelling the caller stops a long request")
  func cancellation() async throws {
    let model = try TestModel.requireModel()
    _ = try await model.embedding(for: "warm up")   // weights and context made
    let texts = (0..<2_000).map { "Sentence \($0) about nothing in particular, long enough to take a while." }
    let task = Task { try await model.embeddings(for: texts) }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    await #expect(throws: CancellationError.self) { _ = try await task.value }
    #expect(try await model.embedding(for: "after").dimensions == 576, "the embedder still works")
  }

  @Test("embeddings and a generation on the same weights take turns and both finish")
  func besideGeneration() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model)
    async let answer = session.respond(to: "Count to five.", options: TestModel.greedy)
    async let vectors = model.embeddings(for: Self.texts)
    let (text, embedded) = try await (answer, vectors)
    #expect(!text.content.isEmpty && embedded.embeddings.count == Self.texts.count)
  }

  @Test("the batched model embeds as the single-session one does")
  func batched() async throws {
    let batched = BatchedLanguageModel(modelPath: TestModel.path, configuration: .init(maxConcurrentSequences: 2, contextSizePerSequence: 1024))
    let single = try TestModel.requireModel()
    let a = try await batched.embedding(for: Self.texts[0])
    let b = try await single.embedding(for: Self.texts[0])
    #expect(a.cosineSimilarity(to: b) > 0.9999)
    #expect(try await batched.embeddingDimensions == 576)
  }
}
