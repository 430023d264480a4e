import Foundation
import HybridAI
@testable import HybridAIOnDevice
import HybridAITestSupport
import Synchronization
import Testing

/// Real-model tests: SmolLM2-135M through llama.cpp. Serialized to keep 2 cores uncontended.
@Suite("SystemLanguageModel on llama.cpp", .serialized)
struct SystemLanguageModelTests {
  @Test("the bootstrap's model is available")
  func defaultModelIsAvailable() throws {
    let model = try TestModel.requireModel()
    #expect(model.availability == .available, "\(model.availabilityDetail ?? "")")
    #expect(model.modelIdentifier == "SmolLM2-135M-Instruct.Q4_1")
  }

  @Test("greedy sampling: the same prompt gives the same text twice")
  func greedyIsDeterministic() async throws {
    let model = try TestModel.requireModel()
    let first = try await GenerativeModelSession(model: model).respond(to: "Name three colors.", options: TestModel.greedy)
    let second = try await GenerativeModelSession(model: model).respond(to: "Name three colors.", options: TestModel.greedy)
    #expect(!first.content.isEmpty)
    #expect(first.content == second.content)
    #expect(first.rawResponse.modelVersion == "SmolLM2-135M-Instruct.Q4_1")
    #expect(first.usage.outputTokens > 0 && first.usage.promptTokens > 0)
  }

  @Test("turn 2 reuses turn 1's cached prefix and evaluates only the new tokens")
  func multiTurnPrefixReuse() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model, instructions: "You are a helpful assistant.")
    let first = try await session.respond(to: "What is the capital of France?", options: TestModel.greedy)
    #expect(first.usage.cachedPromptTokens == 0)
    let second = try await session.respond(to: "And of Italy?", options: TestModel.greedy)
    // Everything of turn 1's prompt is reused; what is evaluated is turn 1's answer (as text) and the new prompt.
    #expect(second.usage.cachedPromptTokens >= first.usage.promptTokens)
    #expect(second.usage.evaluatedPromptTokens < second.usage.promptTokens - first.usage.promptTokens + 8)
    #expect(second.usage.promptTokens > first.usage.promptTokens + first.usage.outputTokens)
    // A different session starts from nothing: caches are per session.
    let other = try await GenerativeModelSession(model: model).respond(to: "Hi", options: TestModel.greedy)
    #expect(other.usage.cachedPromptTokens == 0)
  }

  @Test("maximumResponseTokens ends the answer with finishReason maxTokens")
  func maxTokens() async throws {
    let model = try TestModel.requireModel()
    let response = try await GenerativeModelSession(model: model).respond(
      to: "Write a long story about a dragon.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 5))
    #expect(response.usage.outputTokens == 5)
    #expect(response.finishReason == .maxTokens)
  }

  @Test("a stop sequence ends the answer before it")
  func stopSequence() async throws {
    let model = try TestModel.requireModel()
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 40)
    let prompt = "Write two sentences about the sea."
    let full = try await GenerativeModelSession(model: model).respond(to: prompt, options: options).content
    let words = full.split(separator: " ")
    try #require(words.count >= 4, "need a longer answer to pick a stop word from: \(full)")
    let stopWord = String(words[words.count / 2])
    var stopping = options
    stopping.stopSequences = [stopWord]
    let stopped = try await GenerativeModelSession(model: model).respond(to: prompt, options: stopping)
    let expected = String(full[..<full.range(of: stopWord)!.lowerBound])
    #expect(stopped.content == expected)
    #expect(stopped.finishReason == .stop)
  }

  @Test("streamed deltas are whole characters and add up to the final text")
  func streamingIsValidUTF8() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model)
    let stream = session.streamResponse(
      to: "Reply with five emoji and the Japanese word for thank you.",
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 32))
    var last = ""
    for try await snapshot in stream {
      #expect(snapshot.content.hasPrefix(last))
      last = snapshot.content
    }
    let response = try await stream.collect()
    #expect(response.content == last)
    #expect(!response.content.contains("\u{FFFD}"))
  }

  @Test("cancelling the task stops generation promptly and keeps the session usable")
  func cancellationMidGeneration() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model)
    let snapshots = SnapshotCounter()
    let task = Task {
      for try await _ in session.streamResponse(
        to: "Write a very long essay about the history of computing.",
        options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 1500)) {
        snapshots.increment()
      }
    }
    while snapshots.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    let atCancel = snapshots.count
    #expect(atCancel < 1500)
    #expect(!session.isResponding)
    #expect(session.transcript.isEmpty)
    // The session still works after a cancellation.
    let next = try await session.respond(to: "Say OK.", options: TestModel.greedy)
    #expect(!next.content.isEmpty)
  }

  @Test("a prompt larger than the context window throws exceededContextWindowSize, and supports() says so first")
  func contextOverflow() async throws {
    _ = try TestModel.requireModel()
    let small = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 128))
    let prompt = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 60)
    let request = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: prompt))]), options: TestModel.greedy)
    guard case .unsupported(.exceedsContextWindow(let tokens, let context)) = await small.supports(request) else {
      Issue.record("supports() should report the overflow")
      return
    }
    #expect(tokens > 128 && context == 128)
    await #expect(throws: GenerationError.exceededContextWindowSize(promptTokens: tokens, contextSize: 128)) {
      try await GenerativeModelSession(model: small).respond(to: prompt, options: TestModel.greedy)
    }
    // The model itself also refuses, for callers that skip supports().
    var thrown: (any Error)?
    do { for try await _ in small.generate(request) {} } catch { thrown = error }
    #expect(thrown as? GenerationError == .exceededContextWindowSize(promptTokens: tokens, contextSize: 128))
  }

  @Test("weights load once and are shared by all sessions")
  func weightsAreShared() async throws {
    _ = try TestModel.requireModel()
    let first = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    let second = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    #expect(first === second)
  }

  @Test("two sessions can answer at the same time")
  func concurrentSessions() async throws {
    let model = try TestModel.requireModel()
    async let a = GenerativeModelSession(model: model).respond(to: "Name a fruit.", options: TestModel.greedy)
    async let b = GenerativeModelSession(model: model).respond(to: "Name a fruit.", options: TestModel.greedy)
    let (first, second) = try await (a, b)
    #expect(first.content == second.content)
  }

  @Test("sessions take turns token by token: a short answer asked during a long one ends first; both as they are alone")
  func sessionsTakeTurnsPerToken() async throws {
    let model = try TestModel.requireModel()
    let longOptions = GenerationOptions(sampling: .greedy, maximumResponseTokens: 120)
    let shortOptions = GenerationOptions(sampling: .greedy, maximumResponseTokens: 3)
    let longPrompt = "Write a long story about a dragon.", shortPrompt = "Say hi."
    let longAlone = try await GenerativeModelSession(model: model).respond(to: longPrompt, options: longOptions)
    let shortAlone = try await GenerativeModelSession(model: model).respond(to: shortPrompt, options: shortOptions)
    try #require(longAlone.usage.outputTokens == 120, "the long answer must use its whole budget")

    let (firstText, signalFirstText) = AsyncStream.makeStream(of: Void.self)
    let longFinished = Mutex(false)
    let long = Task {
      var text = ""
      for try await snapshot in GenerativeModelSession(model: model).streamResponse(to: longPrompt, options: longOptions) {
        if text.isEmpty, !snapshot.content.isEmpty { signalFirstText.yield(()) }
        text = snapshot.content
      }
      longFinished.withLock { $0 = true }
      return text
    }
    for await _ in firstText { break }
    let short = try await GenerativeModelSession(model: model).respond(to: shortPrompt, options: shortOptions)
    let longWasRunning = longFinished.withLock { !$0 }
    let longText = try await long.value
    #expect(longWasRunning, "the short answer waited for the whole long one")
    #expect(short.content == shortAlone.content)
    #expect(longText == longAlone.content)
  }

  @Test("a context freed while a turn waits between tokens (the process stopping) ends that turn with shuttingDown; the next turn works",
        .timeLimit(.minutes(5)))
  func contextFreedMidTurn() async throws {
    _ = try TestModel.requireModel()
    let weights = try await LlamaWeightsCache.shared.weights(at: TestModel.path)
    let conversation = LlamaConversation(weights: weights, settings: .init(contextSize: 512, batchSize: 64, threads: 2),
                                         logger: TestLogging.logger("test"))
    let tokens = MultimodalPrompt(tokens: try weights.tokenize("<|im_start|>user\nWrite a long story about a dragon.<|im_end|>\n<|im_start|>assistant\n"))
    let (firstText, signalFirstText) = AsyncStream.makeStream(of: Void.self)
    let turn = Task {
      defer { signalFirstText.finish() }
      return try await conversation.respond(
        to: tokens, options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 200), guidance: nil,
        modelVersion: "test", requestStarted: .now, cancellation: CancellationFlag(),
        onEvent: { if case .textDelta = $0 { signalFirstText.yield(()) } })
    }
    for await _ in firstText { break }
    await conversation.freeContext()
    do {
      let raw = try await turn.value
      Issue.record("the turn went on with a freed context: \(raw.usage)")
    } catch OnDeviceModelError.shuttingDown {
    } catch {
      Issue.record("expected shuttingDown, got \(error)")
    }
    let next = try await conversation.respond(
      to: tokens, options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 3), guidance: nil,
      modelVersion: "test", requestStarted: .now, cancellation: CancellationFlag(), onEvent: { _ in })
    #expect(next.usage.outputTokens == 3 && next.usage.cachedPromptTokens == 0)
  }

  @Test("an unknown named chat template is a typed error")
  func unknownChatTemplate() async throws {
    _ = try TestModel.requireModel()
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(chatTemplate: .named("no-such-template")))
    await #expect(throws: OnDeviceModelError.self) {
      try await GenerativeModelSession(model: model).respond(to: "Hi", options: TestModel.greedy)
    }
  }

  @Test("a named built-in template works in place of the file's own")
  func namedChatTemplate() async throws {
    _ = try TestModel.requireModel()
    #expect(ChatTemplate.builtInNames.contains("chatml"))
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(chatTemplate: .named("chatml")))
    let response = try await GenerativeModelSession(model: model).respond(to: "Say hi.", options: TestModel.greedy)
    #expect(!response.content.isEmpty)
  }
}

/// Counts snapshots across tasks.
final class SnapshotCounter: Sendable {
  private let value = Mutex(0)
  var count: Int { value.withLock { $0 } }
  func increment() { value.withLock { $0 += 1 } }
}
