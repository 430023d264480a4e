import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// The OpenAI API on the real batching engine: requests beyond the batch wait their turn.
@Suite("Server: the OpenAI API under load (real model)")
struct OpenAIServingTests {
  @Test("64 concurrent requests on a 2-sequence batch: queued, every one answered 200, none lost")
  func requestsAboveTheBatchLimitQueue() async throws {
    let server = try await RunningTestServer.start(maxConcurrentSequences: 2)
    defer { Task { await server.stop() } }
    let url = URL(string: "\(server.baseURL.absoluteString)/v1beta/openai/chat/completions")!
    let replies = try await withThrowingTaskGroup(of: TestHTTP.Reply.self) { group in
      for index in 0..<64 {
        group.addTask {
          try await TestHTTP.send(.POST, url, json: [
            "model": RunningTestServer.modelName, "max_tokens": 2, "temperature": 0,
            "messages": [["role": "user", "content": "Say a number: \(index)"]]])
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(replies.count == 64)
    for reply in replies {
      #expect(reply.status == 200, "\(reply.text)")
      let usage = try reply.json["usage"] as? [String: Any]
      #expect((usage?["completion_tokens"] as? Int ?? 0) >= 1)
    }
    #expect(server.model.generations.count == 64)
    #expect(server.model.generations.allSatisfy { $0.completed })
  }

  @Test("an assistant message last is continued (prefill, as llama-server does); system messages alone are answered")
  func prefillAndSystemOnly() async throws {
    let server = try await RunningTestServer.start(maxConcurrentSequences: 1)
    defer { Task { await server.stop() } }
    let url = URL(string: "\(server.baseURL.absoluteString)/v1beta/openai/chat/completions")!
    let begun = "The capital of France is"
    let prefill = try await TestHTTP.send(.POST, url, json: [
      "model": RunningTestServer.modelName, "max_tokens": 6, "temperature": 0,
      "messages": [["role": "user", "content": "What is the capital of France?"], ["role": "assistant", "content": begun]]])
    #expect(prefill.status == 200, "\(prefill.text)")
    let continuation = try Self.content(prefill)
    #expect(!continuation.isEmpty && !continuation.hasPrefix(begun), "the continuation alone: \(continuation)")

    let systemOnly = try await TestHTTP.send(.POST, url, json: [
      "model": RunningTestServer.modelName, "max_tokens": 6, "temperature": 0,
      "messages": [["role": "system", "content": "Write a haiku about rain."]]])
    #expect(systemOnly.status == 200, "\(systemOnly.text)")
    #expect(!(try Self.content(systemOnly)).isEmpty)
  }

  static func content(_ reply: TestHTTP.Reply) throws -> String {
    let choices = try #require(try reply.json["choices"] as? [[String: Any]])
    return try #require((choices.first?["message"] as? [String: Any])?["content"] as? String, "\(reply.text)")
  }

  @Test("a response_format schema the grammar cannot express exactly is a 400 naming the keyword, unary and streamed")
  func inexpressibleSchema() async throws {
    let server = try await RunningTestServer.start(maxConcurrentSequences: 1)
    defer { Task { await server.stop() } }
    let url = URL(string: "\(server.baseURL.absoluteString)/v1beta/openai/chat/completions")!
    // multipleOf has no exact grammar: the on-device model refuses it rather than decode
    // answers that might not follow the schema.
    let schema: [String: Any] = ["type": "object", "properties": ["count": ["type": "integer", "multipleOf": 3]],
                                 "required": ["count"]]
    for stream in [false, true] {
      let reply = try await TestHTTP.send(.POST, url, json: [
        "model": RunningTestServer.modelName, "max_tokens": 8, "temperature": 0, "stream": stream,
        "messages": [["role": "user", "content": "Count."]],
        "response_format": ["type": "json_schema", "json_schema": ["name": "count", "schema": schema]]])
      #expect(reply.status == 400, "stream \(stream): \(reply.text)")
      let error = try reply.json["error"] as? [String: Any]
      #expect(error?["type"] as? String == "invalid_request_error", "\(reply.text)")
      #expect(error?["param"] as? String == "response_format", "\(reply.text)")
      #expect((error?["message"] as? String)?.contains("multipleOf") == true, "\(reply.text)")
    }
    #expect(server.model.generations.allSatisfy { !$0.completed }, "nothing was decoded")
  }
}
