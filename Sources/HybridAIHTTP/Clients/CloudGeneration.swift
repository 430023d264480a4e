import Foundation
import HybridAI
import Logging

/// What the cloud models (`GeminiModel`, `OpenAIModel`) share around one answer.
public enum CloudGeneration {
  /// A whole answer: its checked tool calls and its completion.
  public typealias Answer = (toolCalls: [Transcript.ToolCall], raw: RawResponse)

  /// The event stream of a cloud model's `generate(_:)`: `answer` runs in a task (cancelled when
  /// the consumer goes away) and hands text deltas and artifacts on as they arrive (`emit`); then
  /// its tool calls (if any) and its completion follow, or its error ends the stream.
  public static func stream(logger: Logger, service: String,
                            answer: @escaping @Sendable (_ emit: @Sendable (GenerationEvent) -> Void) async throws -> Answer)
    -> AsyncThrowingStream<GenerationEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        let answer = try await answer { continuation.yield($0) }
        if !answer.toolCalls.isEmpty { continuation.yield(.toolCalls(answer.toolCalls)) }
        continuation.yield(.completed(answer.raw))
        continuation.finish()
      } catch {
        if !(error is CancellationError) {
          logger.debug("\(service) generation failed", metadata: ["error": "\(error)"])
        }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// The base URL in environment variable `name`, when it holds an http(s) URL with a host; an
  /// invalid value is logged and ignored.
  public static func baseURL(fromEnvironment name: String, logger: Logger) -> URL? {
    guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return nil }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
          url.host != nil else {
      logger.warning("ignoring invalid \(name)", metadata: ["value": "\(text)"])
      return nil
    }
    return url
  }
}
