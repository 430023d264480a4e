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
  public struct ResponseStream<Content: Generable>: AsyncSequence, Sendable {
    /// The answer so far.
    public struct Snapshot: Sendable {
      /// The answer so far: text, or for a structured answer the value as far as it has been
      /// generated (properties not yet generated are `nil`).
      public var content: Content.PartiallyGenerated
      /// The answer's text so far.
      public var rawContent: String
    }

    enum Event: Sendable {
      case snapshot(Snapshot)
      case completed(Response<Content>)
    }
    typealias Continuation = AsyncThrowingStream<Event, any Error>.Continuation

    private let run: Run

    /// `start` begins the request, feeding `continuation`, and returns the task that does it.
    init(start: @escaping @Sendable (Continuation) -> Task<Void, Never>) {
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
        // A stream cut short by cancellation ends with an error, not as if the answer were complete,
        // and only once the request has wound down, so the session is free for the next one.
        if run.response == nil, Task.isCancelled {
          await run.producerFinished()
          throw CancellationError()
        }
        return nil
      }
    }

    /// The one run of the request behind a stream: started on first use, final response kept.
    final class Run: Sendable {
      private struct State {
        var events: AsyncThrowingStream<Event, any Error>?
        var producer: Task<Void, Never>?
        var response: Response<Content>?
      }
      private let start: @Sendable (Continuation) -> Task<Void, Never>
      private let state = Mutex(State())

      init(start: @escaping @Sendable (Continuation) -> Task<Void, Never>) { self.start = start }

      var events: AsyncThrowingStream<Event, any Error> {
        state.withLock { state in
          if let events = state.events { return events }
          let (events, continuation) = AsyncThrowingStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
          state.events = events
          state.producer = start(continuation)
          return events
        }
      }

      /// Waits until the task producing the events has ended.
      func producerFinished() async {
        await state.withLock { $0.producer }?.value
      }

      var response: Response<Content>? {
        get { state.withLock { $0.response } }
        set { state.withLock { $0.response = newValue } }
      }
    }
  }
}
