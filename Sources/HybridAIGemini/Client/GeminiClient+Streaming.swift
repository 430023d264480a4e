import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import HybridAIWire
import NIOCore

extension GeminiClient {
  /// `POST models/{model}:streamGenerateContent?alt=sse`: the answer in chunks as it is generated.
  ///
  /// Each element is one chunk as the API sent it (fold them with
  /// ``GenerateContentResponse/Accumulator``). The stream throws ``GeminiError``s: before the
  /// first chunk as ``generateContent(model:_:)`` does; a blocked prompt or an answer stopped by a
  /// filter as soon as the chunk saying so arrives (that chunk is not yielded; the error carries
  /// the whole response so far); ``GeminiError/connectionLost(_:)`` when the connection fails
  /// mid-stream. A stream that ends cleanly is a complete answer even without a finish reason;
  /// an error envelope inside the stream, as an event or as plain text between events, is thrown
  /// as the error it describes, and other text that is not an event as
  /// ``GeminiError/invalidResponse(_:)``. Cancelling the consuming task, or dropping the stream,
  /// cancels the HTTP request.
  public func streamGenerateContent(model: String, _ request: GenerateContentRequest)
    -> AsyncThrowingStream<GenerateContentResponse, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerateContentResponse.self)
    let task = Task {
      do {
        try await runStream(model: model, request) { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: CloudHTTPTransport<GeminiError>.isCancellation(error) ? CancellationError() : error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  private func runStream(model: String, _ request: GenerateContentRequest,
                         yield: (GenerateContentResponse) -> Void) async throws {
    let body = try encode(request)
    let response = try await send(.POST, Endpoint.model(model, method: "streamGenerateContent", query: [("alt", "sse")]),
                                  body: body, accept: "text/event-stream", operation: "streamGenerateContent")
    var accumulator = GenerateContentResponse.Accumulator()
    func handle(_ chunk: GenerateContentResponse) throws {
      accumulator.add(chunk)
      if let failure = accumulator.response.validationFailure(complete: false) { throw failure }
      yield(chunk)
    }

    let contentType = response.headers.first(name: "content-type")?.lowercased() ?? ""
    if contentType.hasPrefix("application/json") {
      // A server that ignored `alt=sse` sends a JSON array of chunks (or one response).
      let data = try await collectBody(response)
      let chunks = try (try? Gemini.JSON.decode([GenerateContentResponse].self, from: data)) ?? [decodeChunk(data)]
      for chunk in chunks { try handle(chunk) }
    } else {
      var parser = ServerSentEventParser()
      // Kept until the first event: a body with no `data:` lines at all may be plain JSON sent
      // with another content type (a proxy or a stub that ignored `alt=sse`).
      var bodyBeforeFirstEvent: Data? = Data()
      do {
        for try await buffer in response.body {
          if var kept = bodyBeforeFirstEvent {
            kept.append(contentsOf: buffer.readableBytesView)
            bodyBeforeFirstEvent = kept.count <= Self.plainJSONFallbackLimit ? kept : nil
          }
          for event in parser.parse(buffer.readableBytesView) {
            bodyBeforeFirstEvent = nil
            try handle(try decodeChunk(event))
          }
        }
      } catch {
        throw transport.bodyError(error)
      }
      if let event = parser.finish() {
        bodyBeforeFirstEvent = nil
        try handle(try decodeChunk(event))
      }
      if bodyBeforeFirstEvent == nil, let stray = parser.strayText {
        // Events came, and something that is not one: an error body after them, a proxy's page.
        throw Self.strayTextError(stray)
      }
      if accumulator.chunkCount == 0, let body = bodyBeforeFirstEvent,
         let first = body.first(where: { !$0.isASCIIWhitespace }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
        let chunks = try (try? Gemini.JSON.decode([GenerateContentResponse].self, from: body)) ?? [decodeChunk(body)]
        for chunk in chunks { try handle(chunk) }
      }
    }

    guard accumulator.chunkCount > 0 else {
      throw GeminiError.invalidResponse("the stream ended without any chunk")
    }
    // A stream that ended cleanly is the whole answer, with or without a finish reason (Google's
    // servers sometimes send none); a connection that failed mid-stream threw above.
    if let failure = accumulator.response.validationFailure(complete: true) { throw failure }
  }

  /// The most of a stream's body kept to read it as plain JSON when it holds no events.
  static let plainJSONFallbackLimit = 8 << 20

  /// The error for text in an event stream that is not an event: the Google error it holds (a
  /// body such as `{"error": {"code": 499, "status": "CANCELLED", …}}`, alone or in a list), else
  /// an invalid response quoting it.
  static func strayTextError(_ text: String) -> GeminiError {
    let data = Data(text.utf8)
    if let envelope = try? Gemini.JSON.decode(GoogleErrorEnvelope.self, from: data) {
      return GeminiError.http(status: envelope.error.code, body: data)
    }
    if let envelope = (try? Gemini.JSON.decode([GoogleErrorEnvelope].self, from: data))?.first,
       let body = try? JSONEncoder().encode(envelope) {
      return GeminiError.http(status: envelope.error.code, body: body)
    }
    let quoted = text.count > 200 ? String(text.prefix(200)) + "…" : text
    return GeminiError.invalidResponse("the stream held text that is not an event: \(quoted)")
  }

  private func decodeChunk(_ event: ServerSentEvent) throws -> GenerateContentResponse {
    try decodeChunk(Data(event.data.utf8))
  }

  /// A chunk, or the error an in-stream Google error envelope stands for.
  private func decodeChunk(_ data: Data) throws -> GenerateContentResponse {
    if let envelope = try? Gemini.JSON.decode(GoogleErrorEnvelope.self, from: data) {
      throw GeminiError.http(status: envelope.error.code, body: data)
    }
    return try decode(GenerateContentResponse.self, from: data)
  }
}

extension UInt8 {
  /// Space, tab, CR or LF.
  fileprivate var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
