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

  @Test("logprobs: content tokens from several chunks join in order; they become HybridAI's entries (bytes outside 0…255 dropped, none: the token's UTF-8); a request's logProbabilities become logprobs and top_logprobs and back")
  func logProbabilities() throws {
    var answer = ChatCompletionAccumulator()
    _ = answer.add(try Self.decode(chunk(content: "Hi")))
    #expect(answer.logProbabilities == nil, "no logprobs yet")
    _ = answer.add(try Self.decode(#"""
      {"choices": [{"index": 0, "delta": {"content": " there"}, "logprobs": {"content": [
        {"token": "Hi", "logprob": -0.5, "bytes": [72, 105], "top_logprobs": [{"token": "Hi", "logprob": -0.5, "bytes": [72, 105]},
                                                                              {"token": "Hey", "logprob": -1.5, "bytes": null}]}]}}]}
      """#))
    _ = answer.add(try Self.decode(#"""
      {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "logprobs": {"content": [
        {"token": " there", "logprob": -0.25, "bytes": [32, 116, 104, 101, 114, 101, 999]}]}}]}
      """#))
    let tokens = try #require(answer.logProbabilities)
    let entries = ChatLogProbabilities(content: tokens).entries
    #expect(entries.map(\.token) == ["Hi", " there"] && entries.map(\.logProbability) == [-0.5, -0.25])
    #expect(entries[1].bytes == Array(" there".utf8), "999 is no byte")
    #expect(entries[0].topAlternatives.map(\.token) == ["Hi", "Hey"] && entries[0].topAlternatives[1].bytes == Array("Hey".utf8))
    #expect(entries[1].topAlternatives.isEmpty)
    // And back to the wire: the server's form of the same entries.
    let wire = ChatLogProbabilities(entries)
    #expect(wire.content?.map(\.token) == ["Hi", " there"] && wire.content?[0].topLogprobs.map(\.logprob) == [-0.5, -1.5])

    var options = GenerationOptions(sampling: .greedy)
    options.logProbabilities = 3
    let request = ChatCompletionRequest(GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Hi"))]), options: options),
                                        model: "m")
    #expect(request.logprobs == true && request.topLogprobs == 3)
    #expect(try request.generationOptions().logProbabilities == 3, "the server reads back what the client sent")
    options.logProbabilities = nil
    let plain = ChatCompletionRequest(GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Hi"))]), options: options),
                                      model: "m")
    #expect(plain.logprobs == nil && plain.topLogprobs == nil)
    #expect(try plain.generationOptions().logProbabilities == nil)
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
    // Absurd counts from a server are clamped (no overflow when the total is left out).
    let absurd = try JSONDecoder().decode(ChatUsage.self, from: Data(
      #"{"prompt_tokens": 9223372036854775807, "completion_tokens": 9223372036854775807}"#.utf8))
    #expect(absurd.totalTokens == 2 * Int(Int32.max))
    let negative = try JSONDecoder().decode(ChatUsage.self, from: Data(#"{"prompt_tokens": -4, "completion_tokens": 2}"#.utf8))
    #expect(negative.promptTokens == 0 && negative.totalTokens == 2)
    // Speculative decoding's drafts as OpenAI's predicted-output counts, both ways.
    let drafted = ChatUsage(Usage(promptTokens: 3, outputTokens: 9, draftTokens: 7, acceptedDraftTokens: 5))
    #expect(drafted.completionTokensDetails == .init(reasoningTokens: nil, acceptedPredictionTokens: 5, rejectedPredictionTokens: 2))
    let wire = String(decoding: try JSONEncoder().encode(drafted), as: UTF8.self)
    #expect(wire.contains(#""accepted_prediction_tokens":5"#) && wire.contains(#""rejected_prediction_tokens":2"#), "\(wire)")
    let predicted = try JSONDecoder().decode(ChatUsage.self, from: Data(
      #"{"prompt_tokens": 3, "completion_tokens": 9, "completion_tokens_details": {"accepted_prediction_tokens": 5, "rejected_prediction_tokens": 2}}"#.utf8))
    #expect(predicted.completionTokensDetails == drafted.completionTokensDetails)
    let models = try JSONDecoder().decode(ChatModelList.self, from: Data(#"{"data": [{"id": "m"}]}"#.utf8))
    #expect(models.data.map(\.id) == ["m"])
    let completion = try JSONDecoder().decode(ChatCompletion.self, from: Data(
      #"{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}}]}"#.utf8))
    #expect(completion.choices.first?.message.toolCalls?.first?.id == "" && completion.choices.first?.message.toolCalls?.first?.type == "function")
  }
}
