import Foundation
import HybridAI
import HybridAITestSupport
import Testing

/// The session's tool loop, with scripted models (the real models' tool calls are tested in
/// HybridAIOnDeviceTests, HybridAIGeminiTests and HybridAIServerTests).
@Suite struct ToolLoopTests {
  static func call(_ name: String, _ json: String, id: String) throws -> Transcript.ToolCall {
    Transcript.ToolCall(id: id, toolName: name, arguments: try GeneratedContent(json: json))
  }

  @Test func runsToolCallsAndRecordsThemInOrder() async throws {
    let model = ScriptedLanguageModel.rounds([
      .toolCalls([try Self.call("add", #"{"a":2,"b":3}"#, id: "c1"), try Self.call("add", #"{"a":10,"b":1}"#, id: "c2")]),
      .text("The sums are 5 and 11."),
    ])
    let add = RecordingTool(name: "add") { arguments in
      let a: Int = try arguments.value(forProperty: "a")
      let b: Int = try arguments.value(forProperty: "b")
      return ToolOutput("\(a + b)")
    }
    let session = GenerativeModelSession(model: model, tools: [add], instructions: "Use tools.")
    let response = try await session.respond(to: "Add things")

    #expect(response.content == "The sums are 5 and 11.")
    let kinds = response.transcriptEntries.map { entry -> String in
      switch entry {
      case .prompt: "prompt"
      case .toolCalls: "toolCalls"
      case .toolOutput(let output): "output:\(output.callID)=\(Transcript.Entry.toolOutput(output).text)"
      case .response: "response"
      case .instructions: "instructions"
      }
    }
    #expect(kinds == ["prompt", "toolCalls", "output:c1=5", "output:c2=11", "response"])
    #expect(add.calls.count == 2)
    // The second request carries the calls and outputs, and the tool definitions both times.
    let requests = model.requests
    #expect(requests.count == 2)
    #expect(requests.allSatisfy { $0.tools.map(\.name) == ["add"] })
    #expect(requests[1].transcript.count == requests[0].transcript.count + 3)
    // The model's tool turn keeps its provider content, for backends that send it back verbatim.
    guard case .toolCalls(let calls) = response.transcriptEntries[1] else { Issue.record("no tool calls entry"); return }
    #expect(calls.providerContent?.provider == "test")
    // Usage adds up both rounds.
    #expect(response.usage.promptTokens == 20)
    #expect(session.transcript.count == 1 + response.transcriptEntries.count)
    // The instructions record the tools for a later restore.
    guard case .instructions(let instructions) = session.transcript.first else { Issue.record("no instructions"); return }
    #expect(instructions.toolDefinitions.map(\.name) == ["add"])
  }

  @Test func unknownToolIsATypedErrorAndLeavesTheTranscriptAlone() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("delete_everything", "{}", id: "x")])])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "add") { _ in "0" }])
    await #expect(throws: GenerationError.unknownTool(name: "delete_everything", arguments: "{}")) {
      try await session.respond(to: "Go")
    }
    #expect(session.transcript.count == 1)   // just the instructions with the tool list
  }

  @Test func loopStopsAfterTheMaximumRounds() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("ping", "{}", id: "p")])])
    let ping = RecordingTool(name: "ping") { _ in "pong" }
    let session = GenerativeModelSession(model: model, tools: [ping], toolPolicy: ToolExecutionPolicy(maximumRounds: 3))
    await #expect(throws: GenerationError.toolCallLimitExceeded(rounds: 3)) {
      try await session.respond(to: "Ping forever")
    }
    #expect(ping.calls.count == 3)
    #expect(model.requests.count == 4)
  }

  struct Broken: Error, CustomStringConvertible { var description: String { "the disk is on fire" } }

  @Test func aFailingToolReachesTheModelAsAnErrorOutput() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("fail", "{}", id: "f1")]), .text("Sorry, that failed.")])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "fail") { _ in throw Broken() }])
    let response = try await session.respond(to: "Try it")
    #expect(response.content == "Sorry, that failed.")
    let outputs = response.transcriptEntries.compactMap { entry -> Transcript.ToolOutput? in
      if case .toolOutput(let output) = entry { output } else { nil }
    }
    #expect(outputs.count == 1)
    #expect(outputs.first?.isError == true)
    #expect(Transcript.Entry.toolOutput(try #require(outputs.first)).text.contains("the disk is on fire"))
  }

  @Test func aFailingToolIsRethrownWhenThePolicySaysSo() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("fail", #"{"x":1}"#, id: "f1")]), .text("unused")])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "fail") { _ in throw Broken() }],
                                         toolPolicy: ToolExecutionPolicy(failure: .rethrow))
    do {
      try await session.respond(to: "Try it")
      Issue.record("expected a ToolCallError")
    } catch let error as ToolCallError {
      #expect(error.toolName == "fail")
      #expect(error.arguments == #"{"x":1}"#)
      #expect(error.underlyingError is Broken)
    }
    #expect(!session.isResponding)
  }

  @Test func argumentsThatDoNotDecodeAreATypedError() async throws {
    struct Typed: Tool {
      struct Arguments: ConvertibleFromGeneratedContent {
        var count: Int
        init(_ content: GeneratedContent) throws { count = try content.value(forProperty: "count") }
      }
      let name = "typed"
      let description = "Needs a count"
      let parameters = GenerationSchema(jsonSchema: ["type": "object"])
      func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput { "\(arguments.count)" }
    }
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("typed", #"{"count":"many"}"#, id: "t")])])
    let session = GenerativeModelSession(model: model, tools: [Typed()])
    do {
      try await session.respond(to: "Count")
      Issue.record("expected invalidToolArguments")
    } catch GenerationError.invalidToolArguments(let tool, let arguments, _) {
      #expect(tool == "typed")
      #expect(arguments == #"{"count":"many"}"#)
    }
  }

  @Test func requiredToolChoiceIsRelaxedAfterTheCallsSoTheModelCanAnswer() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("ping", "{}", id: "p")]), .text("done")])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "ping") { _ in "pong" }])
    _ = try await session.respond(to: "Ping once", options: GenerationOptions(toolChoice: .required()))
    let choices = model.requests.map(\.options.toolChoice)
    #expect(choices == [.required(), .automatic])
  }

  @Test func transcriptWithToolEntriesRoundTripsThroughJSONAndContinues() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("ping", #"{"b":1,"a":2}"#, id: "p")]), .text("pong received")])
    let ping = RecordingTool(name: "ping") { _ in "pong" }
    let session = GenerativeModelSession(model: model, tools: [ping], instructions: "Be brief.")
    _ = try await session.respond(to: "Ping")
    let data = try session.transcript.jsonData()
    let restored = try Transcript(jsonData: data)
    #expect(restored == session.transcript)
    #expect(try restored.jsonData() == data)   // byte-stable
    // Argument order is kept as generated.
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#"{\"b\":1,\"a\":2}"#))

    let continued = GenerativeModelSession(model: ScriptedLanguageModel.rounds([.text("again")]), tools: [ping], transcript: restored)
    let next = try await continued.respond(to: "And now?")
    #expect(next.content == "again")
    #expect(continued.transcript.count == restored.count + 2)
  }
}

extension ToolLoopTests {
  @Test func afterTheLastRoundTheModelCanBeMadeToAnswer() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("ping", "{}", id: "p")]), .toolCalls([try Self.call("ping", "{}", id: "q")]),
                                    .text("final")])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "ping") { _ in "pong" }],
                                         toolPolicy: ToolExecutionPolicy(maximumRounds: 2, limit: .answerWithoutTools))
    let response = try await session.respond(to: "Ping")
    #expect(response.content == "final")
    let choices = model.requests.map(\.options.toolChoice)
    #expect(choices == [nil, nil, ToolChoice.none])
  }

  @Test func aModelThatIgnoresToolChoiceNoneStillHitsTheLimit() async throws {
    let model = ScriptedLanguageModel.rounds([.toolCalls([try Self.call("ping", "{}", id: "p")])])
    let session = GenerativeModelSession(model: model, tools: [RecordingTool(name: "ping") { _ in "pong" }],
                                         toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools))
    await #expect(throws: GenerationError.toolCallLimitExceeded(rounds: 1)) { try await session.respond(to: "Ping") }
  }
}
