import Synchronization

extension GenerativeModelSession {
  /// An answer as it is generated: an `AsyncSequence` of growing ``Snapshot``s.
  ///
  /// ```swift
  /// let stream = session.streamResponse(to: "Tell me a story")
  /// for try await snapshot in stream {
  ///   render(snapshot.content)              // the whole answer so far
  /// }
  /// let response = try await stream.collect()  // the final response, with usage
  /// ```
  /// The request starts when iteration (or ``collect()``) starts and runs once: iterate a stream
  /// once, then ``collect()`` returns its final response. Cancelling the iterating task stops
  /// generation.
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

    private let run: Run

    init(start: @escaping @Sendable (Continuation) -> Void) {
      run = Run(start: start)
    }

    /// Runs the request to the end (or consumes what is left of it) and returns the final response.
    public func collect() async throws -> Response<Content> {
      var iterator = makeAsyncIterator()
      while try await iterator.next() != nil {}
      if let response = run.response { return response }
      try Task.checkCancellation()
      throw CancellationError()
    }

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: run.events.makeAsyncIterator(), run: run)
    }

    /// Iterates the snapshots.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncThrowingStream<Event, any Error>.AsyncIterator
      let run: Run

      public mutating func next() async throws -> Snapshot? {
        while let event = try await base.next() {
          switch event {
          case .snapshot(let snapshot): return snapshot
          case .completed(let response): run.response = response
          }
        }
        // A stream cut short by cancellation ends with an error, not as if the answer were complete.
        if run.response == nil { try Task.checkCancellation() }
        return nil
      }
    }

    /// The one run of the request behind a stream: started on first use, final response kept.
    final class Run: Sendable {
      private let start: @Sendable (Continuation) -> Void
      private let state = Mutex<(events: AsyncThrowingStream<Event, any Error>?, response: Response<Content>?)>((nil, nil))

      init(start: @escaping @Sendable (Continuation) -> Void) { self.start = start }

      var events: AsyncThrowingStream<Event, any Error> {
        state.withLock { state in
          if let events = state.events { return events }
          let events = AsyncThrowingStream(bufferingPolicy: .unbounded, start)
          state.events = events
          return events
        }
      }

      var response: Response<Content>? {
        get { state.withLock { $0.response } }
        set { state.withLock { $0.response = newValue } }
      }
    }
  }
}
