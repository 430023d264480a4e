import HybridAI

/// A model's event stream, read one event at a time first by the request handler (the first
/// event, so failures before it become HTTP errors) and then by the response body writer.
/// Dropping it (or ``cancel()``) ends the stream, which cancels the model's work.
///
/// `@unchecked Sendable`: the iterator is used by one task at a time — the handler finishes with it
/// before it returns the response whose body writer continues — never concurrently.
final class GenerationEvents: @unchecked Sendable {
  private var iterator: AsyncThrowingStream<GenerationEvent, any Error>.AsyncIterator?

  init(_ stream: AsyncThrowingStream<GenerationEvent, any Error>) {
    iterator = stream.makeAsyncIterator()
  }

  /// The next event, or `nil` at the end.
  func next() async throws -> GenerationEvent? {
    try await iterator?.next()
  }

  /// Stops generation: drops the stream, which cancels the model's work.
  func cancel() {
    iterator = nil
  }
}
