extension GenerativeModelSession {
  /// An answer as it is generated: an `AsyncSequence` of growing ``Snapshot``s.
  ///
  /// ```swift
  /// for try await snapshot in session.streamResponse(to: "Tell me a story") {
  ///   render(snapshot.content)            // the whole answer so far
  /// }
  /// ```
  /// Each iteration runs the request once. Cancelling the iterating task stops generation.
  public struct ResponseStream<Content: Sendable>: AsyncSequence, Sendable {
    /// The answer so far.
    public struct Snapshot: Sendable {
      /// The answer so far.
      public var content: Content
      /// The answer's text so far.
      public var rawContent: String
    }

    enum Event: Sendable {
      case snapshot(Snapshot)
      case completed(Response<Content>)
    }
    typealias Continuation = AsyncThrowingStream<Event, any Error>.Continuation

    private let start: @Sendable (Continuation) -> Void

    init(start: @escaping @Sendable (Continuation) -> Void) {
      self.start = start
    }

    private func events() -> AsyncThrowingStream<Event, any Error> {
      AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in start(continuation) }
    }

    /// Runs the request to the end and returns the complete response.
    public func collect() async throws -> Response<Content> {
      var completed: Response<Content>?
      for try await event in events() {
        if case .completed(let response) = event { completed = response }
      }
      try Task.checkCancellation()
      guard let completed else { throw CancellationError() }
      return completed
    }

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: events().makeAsyncIterator())
    }

    /// Iterates the snapshots.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncThrowingStream<Event, any Error>.AsyncIterator

      public mutating func next() async throws -> Snapshot? {
        while let event = try await base.next() {
          if case .snapshot(let snapshot) = event { return snapshot }
        }
        return nil
      }
    }
  }
}
