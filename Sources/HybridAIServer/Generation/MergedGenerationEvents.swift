import HybridAI

/// Several answers' event streams read as one (OpenAI's `n` choices), each event with the index of
/// its answer, in the order they come. A failure of any ends it with that error; ``cancel()`` (or
/// dropping it) stops every answer.
///
/// `@unchecked Sendable` as ``GenerationEvents``: one task reads it at a time.
final class MergedGenerationEvents: @unchecked Sendable {
  private var iterator: AsyncThrowingStream<(Int, GenerationEvent), any Error>.AsyncIterator?
  private let reading: Task<Void, Never>

  /// Reads `answers`, whose first events (already taken by the handler) are `firsts`.
  init(_ answers: [GenerationEvents], firsts: [GenerationEvent?]) {
    let (stream, continuation) = AsyncThrowingStream<(Int, GenerationEvent), any Error>.makeStream()
    reading = Task {
      await withTaskGroup(of: Void.self) { group in
        for (index, events) in answers.enumerated() {
          let first = firsts[index]
          group.addTask {
            var event = first
            do {
              while let current = event {
                continuation.yield((index, current))
                event = try await events.next()
              }
            } catch {
              continuation.finish(throwing: error)
            }
          }
        }
      }
      continuation.finish()
    }
    // Cancelling the readers ends each answer's stream, which cancels its generation.
    continuation.onTermination = { [reading] _ in reading.cancel() }
    iterator = stream.makeAsyncIterator()
  }

  deinit { reading.cancel() }

  /// The next event and the index of its answer, or `nil` when every answer has ended.
  func next() async throws -> (Int, GenerationEvent)? {
    try await iterator?.next()
  }

  /// Stops every answer.
  func cancel() {
    iterator = nil
    reading.cancel()
  }
}
