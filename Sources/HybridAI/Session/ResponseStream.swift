import Synchronization

extension GenerativeModelSession {
  /// An answer as it is generated: an `AsyncSequence` of growing ``Snapshot``s, or with
  /// ``events`` of typed ``Event``s (model chosen, text, tool calls and their progress, artifacts).
  ///
  /// ```swift
  /// let stream = session.streamResponse(to: "Tell me a story")
  /// for try await snapshot in stream {
  ///   render(snapshot.content)              // the whole answer so far
  /// }
  /// let response = try await stream.collect()  // the final response, with usage
  /// ```
  /// The request starts when iteration (or ``collect()``) starts and runs once: iterate a stream
  /// (or its ``events``) once, then ``collect()`` returns its final response. Cancelling the
  /// iterating task stops generation.
  public struct ResponseStream<Content: Generable>: AsyncSequence, Sendable {
    /// The answer so far.
    public struct Snapshot: Sendable {
      /// The answer so far: text, or for a structured answer the value as far as it has been
      /// generated (properties not yet generated are `nil`).
      public var content: Content.PartiallyGenerated
      /// The answer's text so far.
      public var rawContent: String
    }

    /// What happens while a request is answered, in order, for a UI that shows more than text.
    ///
    /// ```swift
    /// for try await event in session.streamResponse(to: "Read the poem aloud").events {
    ///   switch event {
    ///   case .modelSelected(let model, let fallback): showModel(model, fallback)
    ///   case .textDelta(let text): append(text)
    ///   case .partialContent: break                        // structured answers only
    ///   case .toolStarted(let name, _): showSpinner(name)
    ///   case .toolProgress(_, let fraction, let message): showProgress(fraction, message)
    ///   case .artifactCreated(_, let artifact): show(artifact.fileURL, artifact.mimeType)
    ///   case .toolFinished: hideSpinner()
    ///   case .generatedArtifact(let artifact): show(artifact.fileURL, artifact.mimeType)
    ///   case .completed(let response): finish(response)
    ///   }
    /// }
    /// ```
    /// With tools, one request may have several model rounds: each starts with
    /// ``modelSelected(_:fallback:)`` (requests are routed afresh), then text and tool calls.
    /// Events of one tool call come in the order started, progress, artifacts, finished; calls of
    /// one round run concurrently, so their events may interleave.
    public enum Event: Sendable {
      /// The model that answers this round: its ``LanguageModel/modelIdentifier`` and, when a
      /// ``HybridModel`` did not use its primary, why (a later event of the same round replaces
      /// an earlier one: a cloud model found offline before its first chunk).
      case modelSelected(String, fallback: Fallback?)
      /// More of the answer's text.
      case textDelta(String)
      /// A structured answer as far as it has been generated (not sent for text answers).
      case partialContent(Snapshot)
      /// The session is calling a tool; `callID` is the ``Transcript/ToolCall/id``.
      case toolStarted(toolName: String, callID: String)
      /// A tool reported progress through ``ToolContext/report(progress:_:)``: `fraction` in 0...1.
      case toolProgress(callID: String, fraction: Double, message: String)
      /// A tool's artifact is stored; the reference carries its local file URL.
      case artifactCreated(callID: String, ArtifactReference)
      /// A file the model made as part of its answer (an image or a sound from a cloud model) is
      /// stored; the reference carries its local file URL. It is also in ``Response/artifacts``.
      case generatedArtifact(ArtifactReference)
      /// A tool call is over; `isError` when the tool threw or its artifacts could not be stored.
      case toolFinished(callID: String, isError: Bool)
      /// The answer is complete; the last event.
      case completed(Response<Content>)

      init(_ activity: ToolActivity) {
        switch activity {
        case .started(let toolName, let callID): self = .toolStarted(toolName: toolName, callID: callID)
        case .progress(let callID, let fraction, let message):
          self = .toolProgress(callID: callID, fraction: fraction, message: message)
        case .artifactCreated(let callID, let reference): self = .artifactCreated(callID: callID, reference)
        case .finished(let callID, let isError): self = .toolFinished(callID: callID, isError: isError)
        }
      }
    }

    /// What the request's task sends: every event, and the snapshot that goes with each text delta.
    enum Message: Sendable {
      case snapshot(Snapshot)
      case event(Event)
    }
    typealias Continuation = AsyncThrowingStream<Message, any Error>.Continuation

    private let run: Run

    /// `start` begins the request, feeding `continuation`, and returns the task that does it.
    init(start: @escaping @Sendable (Continuation) -> Task<Void, Never>) {
      run = Run(start: start)
    }

    /// The request as typed events, ending with ``Event/completed(_:)``. Iterate either the
    /// stream or its events, once.
    public var events: Events { Events(run: run) }

    /// Runs the request to the end (or consumes what is left of it) and returns the final response.
    public func collect() async throws -> Response<Content> {
      var iterator = makeAsyncIterator()
      while try await iterator.next() != nil {}
      if let response = run.response { return response }
      try Task.checkCancellation()
      throw CancellationError()
    }

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(base: run.messages.makeAsyncIterator(), run: run)
    }

    /// Iterates the snapshots.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncThrowingStream<Message, any Error>.AsyncIterator
      let run: Run

      public mutating func next() async throws -> Snapshot? {
        try await run.next(from: &base) { message in
          if case .snapshot(let snapshot) = message { snapshot } else { nil }
        }
      }
    }

    /// The request's typed events (``ResponseStream/events``).
    public struct Events: AsyncSequence, Sendable {
      let run: Run

      public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: run.messages.makeAsyncIterator(), run: run)
      }

      /// Iterates the events.
      public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Message, any Error>.AsyncIterator
        let run: Run

        public mutating func next() async throws -> Event? {
          try await run.next(from: &base) { message in
            switch message {
            case .event(let event): event
            // A text answer's snapshot is its text, which the deltas already carry.
            case .snapshot(let snapshot): Content.self == String.self ? nil : .partialContent(snapshot)
            }
          }
        }
      }
    }

    /// The one run of the request behind a stream: started on first use, final response kept.
    final class Run: Sendable {
      private struct State {
        var messages: AsyncThrowingStream<Message, any Error>?
        var producer: Task<Void, Never>?
        var response: Response<Content>?
      }
      private let start: @Sendable (Continuation) -> Task<Void, Never>
      private let state = Mutex(State())

      init(start: @escaping @Sendable (Continuation) -> Task<Void, Never>) { self.start = start }

      var messages: AsyncThrowingStream<Message, any Error> {
        state.withLock { state in
          if let messages = state.messages { return messages }
          let (messages, continuation) = AsyncThrowingStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
          state.messages = messages
          state.producer = start(continuation)
          return messages
        }
      }

      /// The next message of `base` that `element` maps to an element (keeping the final response
      /// on the way), or `nil` at the end. A stream cut short by cancellation ends with an error,
      /// not as if the answer were complete, and only once the request has wound down, so the
      /// session is free for the next one.
      func next<Element>(from base: inout AsyncThrowingStream<Message, any Error>.AsyncIterator,
                         _ element: (Message) -> Element?) async throws -> Element? {
        while let message = try await base.next() {
          if case .event(.completed(let response)) = message { self.response = response }
          if let element = element(message) { return element }
        }
        if response == nil, Task.isCancelled {
          await state.withLock { $0.producer }?.value
          throw CancellationError()
        }
        return nil
      }

      var response: Response<Content>? {
        get { state.withLock { $0.response } }
        set { state.withLock { $0.response = newValue } }
      }
    }
  }
}
