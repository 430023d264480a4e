import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

@Suite("Cancellation")
struct CancellationTests {
  @Test("cancelling the consuming task stops the HTTP request", .timeLimit(.minutes(5)))
  func cancelMidStream() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "first"}]}}]}"#,
    ], end: .hang))
    defer { Task { await server.stop() } }
    let model = testModel(server)
    let (firstDelta, signal) = AsyncStream.makeStream(of: String.self)
    let consumer = Task {
      var deltas: [String] = []
      do {
        for try await event in model.generate(request()) {
          if case .textDelta(let text) = event {
            deltas.append(text)
            signal.yield(text)
          }
        }
      } catch {
        return (deltas, error as (any Error)?)
      }
      return (deltas, nil)
    }
    var iterator = firstDelta.makeAsyncIterator()
    #expect(await iterator.next() == "first")
    consumer.cancel()
    let (deltas, _) = await consumer.value
    #expect(deltas == ["first"])
    // The client closed its connection: the server sees it go away, though it never ended the stream.
    #expect(await server.wait { $0.closedConnections >= 1 })
  }

  @Test("cancelling before the response head arrives stops the request", .timeLimit(.minutes(5)))
  func cancelBeforeHead() async throws {
    let server = try await TestHTTPServer.start(replying: .stream(
      status: 200, headers: [("content-type", "text/event-stream")], chunks: [], delay: .zero, end: .hang))
    defer { Task { await server.stop() } }
    let model = testModel(server)
    let consumer = Task { await run(model, request()) }
    #expect(await server.wait { $0.requests.count == 1 })
    consumer.cancel()
    let outcome = await consumer.value
    #expect(outcome.raw == nil)
    #expect(await server.wait { $0.closedConnections >= 1 })
  }
}
