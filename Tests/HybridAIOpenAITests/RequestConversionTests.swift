import Foundation
import HybridAI
@testable import HybridAIOpenAI
import Testing

/// A session's turn as a Chat Completions request (the client's direction), and back through the
/// server's direction: what goes out is what a HybridAI server reads in.
@Suite("OpenAI request conversion")
struct RequestConversionTests {
  static let call = Transcript.ToolCall(id: "call_1", toolName: "get_weather", arguments: try! GeneratedContent(json: #"{"city":"Paris"}"#))

  static var conversation: Transcript {
    Transcript(entries: [
      .instructions(Transcript.Instructions(text: "Be brief.")),
      .prompt(Transcript.Prompt(text: "Weather in Paris?")),
      .response(Transcript.Response(text: "Let me look.")),
      .toolCalls(Transcript.ToolCalls(calls: [call])),
      .toolOutput(Transcript.ToolOutput(callID: "call_1", toolName: "get_weather", text: "no data", isError: true)),
    ])
  }

  @Test("messages: instructions first as system, a response and its calls as one assistant message, a failed tool's text says so")
  func messages() throws {
    let wire = ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: GenerationOptions()), model: "m")
    #expect(wire.model == "m")
    #expect(wire.messages.map(\.role) == ["system", "user", "assistant", "tool"])
    #expect(wire.messages[0].content == .text("Be brief."))
    #expect(wire.messages[2].content == .text("Let me look."))
    #expect(wire.messages[2].toolCalls == [ChatToolCall(id: "call_1", name: "get_weather", arguments: #"{"city":"Paris"}"#)])
    #expect(wire.messages[3].toolCallID == "call_1" && wire.messages[3].content == .text("Error: no data"))
    // What the server direction reads back: the same conversation.
    let back = try wire.generationRequest()
    #expect(back.transcript.count == 5)
    guard case .toolCalls(let calls)? = back.transcript.entries.dropLast().last else {
      Issue.record("no tool calls read back: \(back.transcript)")
      return
    }
    #expect(calls.calls.first?.id == "call_1" && calls.calls.first?.arguments.jsonValue == ["city": "Paris"])
  }

  @Test("options: greedy is temperature 0 with seed 0; nucleus is top_p and seed; limits and stops as they are")
  func options() throws {
    var greedy = GenerationOptions(sampling: .greedy, temperature: 0.7, maximumResponseTokens: 12)
    greedy.stopSequences = ["END", ""]
    let wire = ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: greedy), model: "m")
    #expect(wire.temperature == 0 && wire.seed == 0 && wire.topP == nil)
    #expect(wire.maxCompletionTokens == 12 && wire.maxTokens == nil)
    #expect(wire.stop == ChatStop(["END"]))
    let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(wire)) as? [String: Any]
    #expect(json?["max_completion_tokens"] as? Int == 12)

    let nucleus = ChatCompletionRequest(GenerationRequest(
      transcript: Self.conversation, options: GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: 42), temperature: 0.8)),
      model: "m")
    #expect(nucleus.topP == 0.9 && nucleus.seed == 42 && nucleus.temperature == 0.8)
  }

  @Test("penalties: frequency and presence both ways (-2…2, else a typed error); the on-device-only ones are not sent")
  func penalties() throws {
    let options = GenerationOptions(repetitionPenalty: 1.2, loopPenalty: .standard, frequencyPenalty: 0.5, presencePenalty: -0.5)
    let wire = ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: options), model: "m")
    #expect(wire.frequencyPenalty == 0.5 && wire.presencePenalty == -0.5)
    let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(wire)) as? [String: Any])
    #expect(json["frequency_penalty"] as? Double == 0.5 && json["presence_penalty"] as? Double == -0.5)
    #expect(!json.keys.contains { $0.contains("repe") || $0.contains("loop") || $0.contains("dry") }, "\(json.keys)")
    let back = try wire.generationOptions()
    #expect(back.frequencyPenalty == 0.5 && back.presencePenalty == -0.5 && back.repetitionPenalty == nil)
    var tooHigh = wire
    tooHigh.presencePenalty = 2.5
    #expect(throws: OpenAIConversionError.invalidOption(param: "presence_penalty", "must be between -2 and 2")) {
      try tooHigh.generationOptions()
    }
  }

  @Test("tools and tool choice: one required tool is named; several required tools are the only ones offered")
  func tools() throws {
    let other = ToolDefinition(name: "get_time", description: "", parameters: .emptyObject)
    let third = ToolDefinition(name: "get_date", description: "", parameters: .emptyObject)
    func wire(_ choice: ToolChoice?) -> ChatCompletionRequest {
      var options = GenerationOptions()
      options.toolChoice = choice
      return ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: options,
                                                     tools: [weatherTool, other, third]), model: "m")
    }
    #expect(wire(nil).tools?.map(\.function.name) == ["get_weather", "get_time", "get_date"])
    #expect(wire(nil).toolChoice == nil)
    #expect(wire(nil).tools?.first?.function.parameters == weatherTool.parameters.jsonSchema)
    #expect(wire(nil).tools?[1].function.description == nil, "an empty description is left out")
    #expect(wire(.automatic).toolChoice == .auto)
    #expect(wire(ToolChoice.none).toolChoice == ChatToolChoice.none)
    #expect(wire(.required()).toolChoice == .required)
    #expect(wire(.required(tools: ["get_time"])).toolChoice == .function(name: "get_time"))
    let several = wire(.required(tools: ["get_time", "get_date"]))
    #expect(several.toolChoice == .required && several.tools?.map(\.function.name) == ["get_time", "get_date"])
    // No tools: no tool choice either.
    var options = GenerationOptions()
    options.toolChoice = .required()
    #expect(ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: options), model: "m").toolChoice == nil)
  }

  @Test("a response format is response_format json_schema with its schema and name")
  func responseFormat() throws {
    let schema = GenerationSchema(jsonSchema: ["type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"]])
    let wire = ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: GenerationOptions(),
                                                       responseFormat: ResponseFormat(name: "count", schema: schema)), model: "m")
    #expect(wire.responseFormat == .jsonSchema(name: "count", schema: schema.jsonSchema, strict: nil))
    let unnamed = ChatCompletionRequest(GenerationRequest(transcript: Self.conversation, options: GenerationOptions(),
                                                          responseFormat: ResponseFormat(schema: schema)), model: "m")
    #expect(unnamed.responseFormat == .jsonSchema(name: "response", schema: schema.jsonSchema, strict: nil))
  }
}
