import Foundation
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
}
