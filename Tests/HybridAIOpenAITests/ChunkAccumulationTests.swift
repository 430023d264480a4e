import Foundation
import HybridAI
import HybridAIOpenAI
import Testing

/// Folding streamed chunks: text, tool calls by index, finish reason, usage; and decoding what
/// compatible servers really send (fields missing).
@Suite("OpenAI stream accumulation")
struct ChunkAccumulationTests {
  static func decode(_ text: String) throws -> ChatCompletionChunk {
    try JSONDecoder().decode(ChatCompletionChunk.self, from: Data(text.utf8))
  }

  @Test("tool-call pieces join by index, across chunks; text, finish reason, model and usage are kept")
  func toolCallPieces() throws {
    var answer = ChatCompletionAccumulator()
    #expect(answer.add(try Self.decode(chunk(role: "assistant"))) == "")
    #expect(answer.add(try Self.decode(chunk(content: "Let me"))) == "Let me")
    #expect(answer.add(try Self.decode(chunk(content: " check."))) == " check.")
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 0, "id": "a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]"#)))
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 0, "function": {"arguments": "{\"city\": "}}]"#)))
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 1, "id": "b", "function": {"name": "get_time", "arguments": "{}"}}]"#)))
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 0, "function": {"arguments": "\"Paris\"}"}}]"#)))
    _ = answer.add(try Self.decode(chunk(finish: "tool_calls")))
    _ = answer.add(try Self.decode(usageChunk(prompt: 30, completion: 9, cached: 12)))
    #expect(answer.text == "Let me check.")
    #expect(answer.toolCalls == [ChatToolCall(id: "a", name: "get_weather", arguments: #"{"city": "Paris"}"#),
                                 ChatToolCall(id: "b", name: "get_time", arguments: "{}")])
    #expect(answer.finishReason == "tool_calls" && answer.model == "served-model")
    #expect(answer.usage?.promptTokens == 30 && answer.usage?.completionTokens == 9 && answer.usage?.promptTokensDetails?.cachedTokens == 12)
    #expect(answer.chunkCount == 9)
  }

  @Test("a server numbering every call 0: a new id starts a new call")
  func everyCallIndexZero() throws {
    var answer = ChatCompletionAccumulator()
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]"#)))
    _ = answer.add(try Self.decode(chunk(toolCalls: #"[{"index": 0, "id": "b", "function": {"name": "g", "arguments": "{}"}}]"#)))
    #expect(answer.toolCalls.map(\.function.name) == ["f", "g"])
  }

  @Test("lenient decoding: a chunk without id, object, created or model; a choice without index; usage without total")
  func lenientDecoding() throws {
    let bare = try Self.decode(#"{"choices": [{"delta": {"content": "hi"}}]}"#)
    #expect(bare.choices.first?.index == 0 && bare.choices.first?.delta.content == "hi" && bare.model.isEmpty)
    let usage = try JSONDecoder().decode(ChatUsage.self, from: Data(#"{"prompt_tokens": 3, "completion_tokens": 4}"#.utf8))
    #expect(usage.totalTokens == 7)
    let reasoning = try JSONDecoder().decode(ChatUsage.self, from: Data(
      #"{"prompt_tokens": 3, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 5}}"#.utf8))
    #expect(reasoning.completionTokensDetails?.reasoningTokens == 5)
    let served = ChatUsage(Usage(promptTokens: 3, outputTokens: 9, reasoningTokens: 5))
    #expect(served.completionTokens == 9 && served.completionTokensDetails?.reasoningTokens == 5)
    #expect(ChatUsage(Usage(promptTokens: 3, outputTokens: 9)).completionTokensDetails == nil)
    let models = try JSONDecoder().decode(ChatModelList.self, from: Data(#"{"data": [{"id": "m"}]}"#.utf8))
    #expect(models.data.map(\.id) == ["m"])
    let completion = try JSONDecoder().decode(ChatCompletion.self, from: Data(
      #"{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}}]}"#.utf8))
    #expect(completion.choices.first?.message.toolCalls?.first?.id == "" && completion.choices.first?.message.toolCalls?.first?.type == "function")
  }
}
