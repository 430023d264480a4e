import HybridAI
import HybridAITestSupport
import Testing

@Suite("GenerativeModelSession")
struct GenerativeModelSessionTests {
  @Test("respond returns the model's text, usage and version, and records the turn")
  func respondRecordsTurn() async throws {
    let model = ScriptedLanguageModel()
    let session = GenerativeModelSession(model: model, instructions: "Be brief.")
    let response = try await session.respond(to: "Say hello")
    #expect(response.content == "Hello, world!")
    #expect(response.rawResponse.modelVersion == "scripted-1")
    #expect(response.usage == Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: 4))
    #expect(response.finishReason == .stop)
    let entries = Array(session.transcript)
    #expect(entries.count == 3)
    guard case .instructions = entries[0], case .prompt(let prompt) = entries[1], case .response(let answer) = entries[2] else {
      Issue.record("unexpected transcript shape: \(entries)")
      return
    }
    #expect(prompt.segments.count == 1 && entries[1].text == "Say hello")
    #expect(answer.modelVersion == "scripted-1" && entries[2].text == "Hello, world!")
    #expect(response.transcriptEntries.map(\.id) == [entries[1].id, entries[2].id])
  }

  @Test("a structured answer gets the standard loop penalty unless the options set one; free text gets none")
  func structuredAnswersGetTheLoopPenalty() async throws {
    let model = ScriptedLanguageModel(deltas: [#"{"a": 1}"#])
    let session = GenerativeModelSession(model: model)
    let schema = GenerationSchema(jsonSchema: ["type": "object", "properties": ["a": ["type": "integer"]]])
    _ = try await session.respond(to: "one", schema: schema)
    _ = try await session.respond(to: "two", schema: schema, options: GenerationOptions(loopPenalty: LoopPenalty(multiplier: 0)))
    _ = try await session.respond(to: "three")
    #expect(model.requests.map(\.options.loopPenalty) == [.standard, LoopPenalty(multiplier: 0), nil])
  }

  @Test("the session's usage sums its answers")
  func sessionUsage() async throws {
    let model = ScriptedLanguageModel(usage: Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: 6, reasoningTokens: 2))
    let session = GenerativeModelSession(model: model)
    #expect(session.usage == .zero)
    try await session.respond(to: "One")
    try await session.respond(to: "Two")
    #expect(session.usage == Usage(promptTokens: 20, cachedPromptTokens: 8, outputTokens: 12, reasoningTokens: 4))
    #expect(session.usage.totalTokens == 32)
  }

  @Test("the model receives the whole conversation, ending with the new prompt")
  func modelSeesHistory() async throws {
    let model = ScriptedLanguageModel()
    let session = GenerativeModelSession(model: model)
    try await session.respond(to: "first")
    try await session.respond(to: "second")
    let requests = model.recording.requests
    #expect(requests.count == 2)
    #expect(requests[1].transcript.map(\.text) == ["first", "Hello, world!", "second"])
  }

  @Test("stream snapshots grow, and collect() returns the final response after iterating")
  func streamSnapshotsGrow() async throws {
    let session = GenerativeModelSession(model: ScriptedLanguageModel())
    let stream = session.streamResponse(to: "hi")
    var snapshots: [String] = []
    for try await snapshot in stream { snapshots.append(snapshot.content) }
    #expect(snapshots == ["Hello", "Hello, ", "Hello, world", "Hello, world!"])
    let response = try await stream.collect()
    #expect(response.content == "Hello, world!")
    #expect(session.transcript.count == 2)
  }

  @Test("a second concurrent request gets concurrentRequests; the first completes")
  func concurrentRequestsAreRejected() async throws {
    let session = GenerativeModelSession(model: ScriptedLanguageModel(delay: .milliseconds(50)))
    let first = Task { try await session.respond(to: "one") }
    while !session.isResponding { await Task.yield() }
    await #expect(throws: GenerationError.concurrentRequests) { try await session.respond(to: "two") }
    #expect(try await first.value.content == "Hello, world!")
    #expect(!session.isResponding)
  }

  @Test("cancelling stops the model, leaves the transcript as it was, and the session stays usable")
  func cancellationStopsGeneration() async throws {
    let model = ScriptedLanguageModel(deltas: Array(repeating: "x", count: 1000), delay: .milliseconds(5))
    let session = GenerativeModelSession(model: model)
    let task = Task { try await session.respond(to: "long") }
    while model.recording.deltasSent < 2 { try await Task.sleep(for: .milliseconds(1)) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    while !model.recording.sawCancellation { try await Task.sleep(for: .milliseconds(1)) }
    #expect(model.recording.deltasSent < 1000)
    #expect(session.transcript.isEmpty)
    #expect(!session.isResponding)
  }

  @Test("an unavailable model throws modelUnavailable with its reason")
  func unavailableModel() async {
    let session = GenerativeModelSession(model: ScriptedLanguageModel(availability: .unavailable(.modelNotReady)))
    await #expect(throws: GenerationError.modelUnavailable(.modelNotReady, detail: "scripted")) {
      try await session.respond(to: "hi")
    }
  }

  @Test("a prompt the model says does not fit throws exceededContextWindowSize")
  func contextOverflow() async {
    let model = ScriptedLanguageModel(support: .unsupported(.exceedsContextWindow(promptTokens: 900, contextSize: 512)))
    let session = GenerativeModelSession(model: model)
    await #expect(throws: GenerationError.exceededContextWindowSize(promptTokens: 900, contextSize: 512)) {
      try await session.respond(to: "hi")
    }
    #expect(model.recording.requests.isEmpty)
  }

  @Test("a model stream that ends without completing throws incompleteResponse")
  func incompleteStream() async {
    let session = GenerativeModelSession(model: ScriptedLanguageModel(completes: false))
    await #expect(throws: GenerationError.incompleteResponse(modelVersion: "scripted")) {
      try await session.respond(to: "hi")
    }
    #expect(session.transcript.isEmpty)
  }

  @Test("a session created from a transcript continues the conversation")
  func resumeFromTranscript() async throws {
    let first = GenerativeModelSession(model: ScriptedLanguageModel(), instructions: "Be brief.")
    try await first.respond(to: "one")
    let saved = try first.transcript.jsonData()
    let model = ScriptedLanguageModel()
    let resumed = GenerativeModelSession(model: model, transcript: try Transcript(jsonData: saved))
    try await resumed.respond(to: "two")
    #expect(model.recording.requests[0].transcript.map(\.text) == ["Be brief.", "one", "Hello, world!", "two"])
    #expect(resumed.transcript.count == 5)
  }
}

@Suite("GenerativeModelSession back-to-back requests")
struct BackToBackTests {
  @Test("the session is free the moment respond returns or throws", arguments: 0..<20)
  func freeRightAfterAnswer(iteration: Int) async throws {
    let session = GenerativeModelSession(model: ScriptedLanguageModel())
    try await session.respond(to: "one")
    #expect(!session.isResponding)
    try await session.respond(to: "two")
    let failing = GenerativeModelSession(model: ScriptedLanguageModel(completes: false))
    await #expect(throws: GenerationError.self) { try await failing.respond(to: "x") }
    #expect(!failing.isResponding)
  }
}
