import AsyncHTTPClient
import Foundation
import HybridAIHTTP

extension OpenAIClient {
  /// `POST chat/completions` with `stream: true` (and `stream_options.include_usage`): the answer
  /// in chunks as it is generated.
  ///
  /// Each element is one chunk as the server sent it (fold them with ``ChatCompletionAccumulator``);
  /// the stream ends at `data: [DONE]`. It throws ``OpenAIError``s: before the first chunk as
  /// ``chatCompletion(_:)`` does; an error event in the stream (`data: {"error": …}`) as the
  /// error it describes; ``OpenAIError/connectionLost(_:)`` when the connection fails, or the
  /// stream ends before `[DONE]` and before a finish reason. Cancelling the consuming task, or
  /// dropping the stream, cancels the HTTP request.
  public func streamChatCompletion(_ request: ChatCompletionRequest) -> AsyncThrowingStream<ChatCompletionChunk, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: ChatCompletionChunk.self)
    let task = Task {
      do {
        try await runStream(request) { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: CloudHTTPTransport<OpenAIError>.isCancellation(error) ? CancellationError() : error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  private func runStream(_ request: ChatCompletionRequest, yield: (ChatCompletionChunk) -> Void) async throws {
    var request = request
    request.stream = true
    request.streamOptions = ChatCompletionRequest.StreamOptions(includeUsage: true)
    let response = try await send(.POST, path: "chat/completions", body: try encode(request),
                                  accept: "text/event-stream", operation: "streamChatCompletion")
    var sawDone = false, sawFinish = false, chunks = 0
    func handle(_ event: ServerSentEvent) throws {
      guard !sawDone else { return }
      let data = event.data.trimmingCharacters(in: .whitespacesAndNewlines)
      if data == "[DONE]" { return sawDone = true }
      if data.isEmpty { return }
      let bytes = Data(data.utf8)
      if let error = Self.errorInStream(bytes) { throw error }
      let chunk = try decode(ChatCompletionChunk.self, from: bytes)
      chunks += 1
      if chunk.choices.contains(where: { $0.finishReason != nil }) { sawFinish = true }
      yield(chunk)
    }

    let contentType = response.headers.first(name: "content-type")?.lowercased() ?? ""
    if contentType.hasPrefix("application/json") {
      throw OpenAIError.invalidResponse("asked for a stream, the server answered with one JSON body")
    }
    var parser = ServerSentEventParser()
    do {
      for try await buffer in response.body {
        for event in parser.parse(buffer.readableBytesView) { try handle(event) }
      }
    } catch let error as OpenAIError {
      throw error
    } catch {
      throw transport.bodyError(error)
    }
    if let event = parser.finish() { try handle(event) }
    if let stray = parser.strayText {
      // Something that is not an event: an error body (llama-server's `error: {…}` line, a plain
      // JSON body), a proxy's page. The answer is not whole, whatever came before.
      if stray.hasPrefix("error:"),
         let error = Self.errorInStream(Data(#"{"error": \#(stray.dropFirst("error:".count))}"#.utf8)) {
        throw error
      }
      if let error = Self.errorInStream(Data(stray.utf8)) { throw error }
      let quoted = stray.count > 200 ? String(stray.prefix(200)) + "…" : stray
      throw OpenAIError.invalidResponse("the stream held text that is not an event: \(quoted)")
    }
    guard sawDone || sawFinish else {
      throw chunks == 0 ? OpenAIError.invalidResponse("the stream ended without any chunk")
                        : OpenAIError.connectionLost("the stream ended before the answer finished")
    }
  }

  /// The error an error body inside a stream stands for, or `nil` when `bytes` is not one.
  private static func errorInStream(_ bytes: Data) -> OpenAIError? {
    guard let envelope = OpenAIErrorEnvelope.lenientlyDecoded(from: bytes) else { return nil }
    let status = envelope.error.code.flatMap(Int.init) ?? 500
    return OpenAIError.http(status: (400..<600).contains(status) ? status : 500, body: bytes)
  }
}
