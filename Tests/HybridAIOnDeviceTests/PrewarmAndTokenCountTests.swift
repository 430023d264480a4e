import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Foundation Models' prewarm, token counting and context size, with the real SmolLM2.
@Suite("Prewarm and token counts on device", .serialized)
struct PrewarmAndTokenCountTests {
  struct Shout: Tool {
    @Generable struct Arguments {
      @Guide(description: "The words to shout") var words: String
    }
    var description: String { "Shouts the words given." }
    func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput { ToolOutput(arguments.words.uppercased()) }
  }

  @Test("contextSize is the configured size, capped at the model's training context")
  func contextSize() async throws {
    let model = try TestModel.requireModel()
    #expect(try await model.contextSize == 2048)
    let huge = SystemLanguageModel(modelPath: model.modelPath, configuration: .init(contextSize: 1_000_000))
    let shape = try huge.fileShape()
    #expect(shape.trainingContextLength > 2048)
    #expect(try await huge.contextSize == shape.trainingContextLength)
    let batched = BatchedLanguageModel(modelPath: model.modelPath, configuration: .init(contextSizePerSequence: 768))
    #expect(try await batched.contextSize == 768)
  }

  @Test("a session's token count for the next prompt is the prompt tokens its answer reports")
  func tokenCountMatchesUsage() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model, instructions: "Answer in five words.")
    let first = try await session.tokenCount(for: "What is rain?")
    let answer = try await session.respond(to: "What is rain?", options: TestModel.greedy)
    #expect(first == answer.usage.promptTokens)
    // The conversation so far, then the next prompt on top of it.
    let sofar = try await session.tokenCount()
    let next = try await session.tokenCount(for: "And snow?")
    let second = try await session.respond(to: "And snow?", options: TestModel.greedy)
    #expect(next == second.usage.promptTokens)
    #expect(sofar < next && sofar > first)
  }

  @Test("counts of a prompt, instructions and tools: longer text, more tokens; tools add their declarations")
  func piecesAddUp() async throws {
    let model = try TestModel.requireModel()
    let short = try await model.tokenCount(for: "Hi")
    let long = try await model.tokenCount(for: "Hi, please tell me everything you know about the history of Rome.")
    #expect(long - short >= 12)
    let instructions = try await model.tokenCount(forInstructions: "You are a pirate. Answer like one.")
    #expect(instructions > 8)
    let tools = try await model.tokenCount(for: [Shout()])
    #expect(tools > 10, "declaring a tool adds its name, description and schema")
    let withTools = GenerativeModelSession(model: model, tools: [Shout()])
    let without = GenerativeModelSession(
      model: model, transcript: Transcript(entries: [.instructions(Transcript.Instructions(text: ""))]))
    let difference = try await withTools.tokenCount(for: "Shout hello") - (try await without.tokenCount(for: "Shout hello"))
    #expect(difference == tools)
  }

  @Test("prewarm(promptPrefix:) fills the cache: the first answer evaluates only what the prefix did not hold")
  func prewarmFillsTheCache() async throws {
    let model = try TestModel.requireModel()
    let instructions = "You translate English into French. Reply with the translation only."
    let cold = try await GenerativeModelSession(model: model, instructions: instructions)
      .respond(to: "Translate: good morning, my friend", options: TestModel.greedy)
    #expect(cold.usage.cachedPromptTokens == 0)

    let warm = GenerativeModelSession(model: model, instructions: instructions)
    try await warm.prewarm(promptPrefix: "Translate:")
    let answer = try await warm.respond(to: "Translate: good morning, my friend", options: TestModel.greedy)
    let instructionTokens = try await model.tokenCount(forInstructions: instructions)
    #expect(answer.usage.cachedPromptTokens > instructionTokens - 4, "the instructions and the prefix came from the cache")
    #expect(answer.usage.evaluatedPromptTokens < 16)
    #expect(answer.content == cold.content, "a warmed cache gives the same greedy answer")
  }

  @Test("prewarm of a missing model, or with a prefix that does not fit, throws a typed error")
  func prewarmErrors() async throws {
    let missing = GenerativeModelSession(model: SystemLanguageModel(modelPath: "/nonexistent/model.gguf"))
    await #expect(throws: GenerationError.modelUnavailable(.modelNotReady, detail: "no model file at /nonexistent/model.gguf")) {
      try await missing.prewarm()
    }
    await #expect(throws: OnDeviceModelError.modelFileMissing(path: "/nonexistent/model.gguf")) {
      _ = try await SystemLanguageModel(modelPath: "/nonexistent/model.gguf").contextSize
    }
    let model = try TestModel.requireModel()
    let small = SystemLanguageModel(modelPath: model.modelPath, configuration: .init(contextSize: 64))
    let session = GenerativeModelSession(model: small)
    do {
      try await session.prewarm(promptPrefix: String(repeating: "many words here ", count: 40))
      Issue.record("a prefix of more than 64 tokens was prewarmed into a 64-token context")
    } catch GenerationError.exceededContextWindowSize(let used, let limit) {
      #expect(limit == 64)
      #expect(used > 64)
    }
  }
}
