import Foundation
import HybridAI
import HybridAIServer
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// An answer that says something and then calls a tool lists the log probabilities of its text's
/// tokens only, as OpenAI and Gemini do: the tokens that became the tool call are not listed,
/// whole or streamed, on both APIs.
@Suite("Server: log probabilities of an answer that calls a tool")
struct ToolCallLogProbabilityTests {
  static let textEntries = [TokenLogProbability(token: "Let", logProbability: -0.1), TokenLogProbability(token: " me", logProbability: -0.2)]
  static let callEntries = [TokenLogProbability(token: "<tool_call>", logProbability: -0.3),
                            TokenLogProbability(token: "{\"x\":1}", logProbability: -0.4)]

  /// Says "Let me", lists every token's log probabilities (the call's after the text's), then calls `add`.
  static func model() throws -> ScriptedLanguageModel {
    let call = Transcript.ToolCall(id: "c1", toolName: "add", arguments: try GeneratedContent(json: #"{"x":1}"#))
    var completion = RawResponse(modelVersion: "scripted-1", source: .onDevice, usage: Usage(promptTokens: 5, outputTokens: 4),
                                 finishReason: .stop)
    completion.logProbabilities = textEntries + callEntries
    let completed = completion
    return ScriptedLanguageModel.served { _, _ in
      [.textDelta("Let"), .logProbabilities([textEntries[0]]), .textDelta(" me"), .logProbabilities([textEntries[1]]),
       .logProbabilities(callEntries), .toolCalls([call]), .completed(completed)]
    }
  }

  static var tools: [[String: Any]] { [["type": "function", "function": ["name": "add", "parameters": ["type": "object"]]]] }

  @Test("OpenAI: the choice's logprobs are the text's tokens, whole and streamed; finish_reason tool_calls")
  func openAI() async throws {
    let server = try await ScriptedServer.start(try Self.model())
    defer { Task { await server.stop() } }
    let body: [String: Any] = ["model": ScriptedServer.modelName, "messages": [["role": "user", "content": "Add."]],
                               "tools": Self.tools, "logprobs": true]
    let whole = try await OpenAIServerTests.chat(server, body)
    let choice = try #require((try whole.json["choices"] as? [[String: Any]])?.first, "\(whole.text)")
    let listed = ((choice["logprobs"] as? [String: Any])?["content"] as? [[String: Any]])?.compactMap { $0["token"] as? String }
    #expect(listed == ["Let", " me"] && choice["finish_reason"] as? String == "tool_calls", "\(whole.text)")

    var streamedBody = body
    streamedBody["stream"] = true
    let chunks = try OpenAIServerTests.events(try await OpenAIServerTests.chat(server, streamedBody)).compactMap { $0 as? [String: Any] }
    let streamed = chunks.flatMap { chunk in
      (chunk["choices"] as? [[String: Any]] ?? []).flatMap { choice in
        ((choice["logprobs"] as? [String: Any])?["content"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
      }
    }
    #expect(streamed == ["Let", " me"], "\(chunks)")
  }

  @Test("Gemini: logprobsResult lists the text's tokens, whole and streamed")
  func gemini() async throws {
    let server = try await ScriptedServer.start(try Self.model())
    defer { Task { await server.stop() } }
    let body: [String: Any] = [
      "contents": [["role": "user", "parts": [["text": "Add."]]]],
      "tools": [["functionDeclarations": [["name": "add", "parameters": ["type": "object"]]]]],
      "generationConfig": ["responseLogprobs": true],
    ]
    func chosen(_ response: [String: Any]) -> [String] {
      let candidate = (response["candidates"] as? [[String: Any]])?.first
      let result = candidate?["logprobsResult"] as? [String: Any]
      return (result?["chosenCandidates"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
    }
    let whole = try await TestHTTP.send(.POST, server.url("generateContent"), json: body)
    let wholeJSON = try whole.json
    #expect(whole.status == 200 && chosen(wholeJSON) == ["Let", " me"], "\(whole.text)")
    let streamed = try await TestHTTP.send(.POST, URL(string: server.url("streamGenerateContent").absoluteString + "?alt=sse")!, json: body)
    // Events end with "\r\n\r\n" (one Character in Swift, so split on newlines, not on "\n").
    let chunks = streamed.text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("data: ") }
      .compactMap { try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any] }
    #expect(chunks.flatMap(chosen) == ["Let", " me"], "\(streamed.text)")
  }
}
