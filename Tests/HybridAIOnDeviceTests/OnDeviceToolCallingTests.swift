import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Synchronization
import Testing

/// Tool calling with the real SmolLM2 model: under the tool grammar a call is always well formed
/// (a known tool, arguments valid for its schema), however naive the model's choice.
@Suite(.serialized) struct OnDeviceToolCallingTests {
  /// Adds two integers; records its calls.
  final class AddTool: Tool {
    typealias Arguments = GeneratedContent
    let name = "add"
    let description = "Adds two integers a and b."
    let parameters = GenerationSchema(jsonSchema: [
      "type": "object",
      "properties": ["a": ["type": "integer", "minimum": -1000, "maximum": 1000], "b": ["type": "integer", "minimum": -1000, "maximum": 1000]],
      "required": ["a", "b"], "additionalProperties": false,
    ])
    let calls = Mutex<[GeneratedContent]>([])

    func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
      calls.withLock { $0.append(arguments) }
      let a: Int = try arguments.value(forProperty: "a")
      let b: Int = try arguments.value(forProperty: "b")
      return ToolOutput("\(a + b)")
    }
  }

  struct WeatherTool: Tool {
    typealias Arguments = GeneratedContent
    let name = "get_weather"
    let description = "The weather in a city."
    let parameters = GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["city": ["type": "string", "maxLength": 24]], "required": ["city"],
    ])
    func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput { "Sunny, 21 degrees" }
  }

  static let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 80, toolChoice: .required())
  /// The 135M model, once it has seen tools, calls them every round; after one round it must answer.
  static let oneRoundThenAnswer = ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools)

  @Test func requiredToolCallIsWellFormedAndTheLoopCompletes() async throws {
    let model = try TestModel.requireModel()
    let add = AddTool()
    let session = GenerativeModelSession(model: model, tools: [add, WeatherTool()], instructions: "Use the tools.",
                                         toolPolicy: Self.oneRoundThenAnswer)
    let response = try await session.respond(to: "What is 17 plus 25?", options: Self.options)

    let calls = response.transcriptEntries.flatMap { entry -> [Transcript.ToolCall] in
      if case .toolCalls(let calls) = entry { calls.calls } else { [] }
    }
    #expect(!calls.isEmpty)
    for call in calls {
      let tool = try #require([add.definition, WeatherTool().definition].first { $0.name == call.toolName })
      let violations = JSONSchemaValidator(schema: tool.parameters.jsonSchema).validate(call.arguments.jsonValue)
      #expect(violations.isEmpty, "\(call.arguments.jsonString): \(violations)")
    }
    let outputs = response.transcriptEntries.filter { if case .toolOutput = $0 { true } else { false } }
    #expect(outputs.count == calls.count)
    guard case .response = response.transcriptEntries.last else {
      Issue.record("the turn should end with the model's answer")
      return
    }
    #expect(response.rawResponse.source == .onDevice)
  }

  @Test func toolConversationContinuesFromARestoredTranscript() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model, tools: [AddTool()], toolPolicy: Self.oneRoundThenAnswer)
    _ = try await session.respond(to: "Add 2 and 3.", options: Self.options)
    let restored = try Transcript(jsonData: session.transcript.jsonData())
    #expect(restored == session.transcript)

    let continued = GenerativeModelSession(model: model, tools: [AddTool()], transcript: restored, toolPolicy: Self.oneRoundThenAnswer)
    let next = try await continued.respond(to: "Now add 4 and 4.", options: Self.options)
    #expect(next.transcriptEntries.contains { if case .toolCalls = $0 { true } else { false } })
    #expect(continued.transcript.count > restored.count)
  }

  @Test func toolCallsRenderInThePromptAsTheModelWroteThem() throws {
    let call = Transcript.ToolCall(id: "c", toolName: "add", arguments: try GeneratedContent(json: #"{"a":1,"b":2}"#))
    #expect(ToolCallFormat.render([call]) == "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\":1,\"b\":2}}\n</tool_call>")
    let parsed = try ToolCallFormat.parseCalls(ToolCallFormat.render([call, call]))
    #expect(parsed.map(\.toolName) == ["add", "add"])
    #expect(parsed.map(\.arguments) == [call.arguments, call.arguments])
    #expect(throws: OnDeviceModelError.self) { try ToolCallFormat.parseCalls("<tool_call>\n{\"name\": \"add\", \"argu") }
    // A last call cut short by the token limit is dropped; the complete ones stay.
    let cut = try ToolCallFormat.parseCalls(ToolCallFormat.render([call]) + "\n<tool_call>\n{\"name\": \"ad")
    #expect(cut.map(\.toolName) == ["add"])
  }

  @Test func toolChoiceNoneAnswersWithText() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model, tools: [AddTool()])
    let response = try await session.respond(
      to: "Say hello.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 16, toolChoice: ToolChoice.none))
    #expect(!response.content.isEmpty)
    #expect(response.transcriptEntries.count == 2)   // prompt and response: no tool round
  }
}
