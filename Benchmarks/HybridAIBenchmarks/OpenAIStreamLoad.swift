import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import HybridAIOpenAI
import NIOCore
import Synchronization

/// The serving benchmark's load generator: N concurrent streams of OpenAI Chat Completions
/// requests (`stream: true`, `include_usage`), each stream running its requests back to back,
/// against any OpenAI-compatible server — so `hybrid serve` and `llama-server` meet the same client.
struct OpenAIStreamLoad: Sendable {
  /// What one width measured.
  struct Result: Sendable {
    /// Output tokens the server reported (its usage), over all requests.
    var tokens = 0
    /// Each request's prompt tokens as the server reported them (its usage; chat template included).
    var promptTokens: [Int] = []
    /// Wall time from the first request's start to the last one's end.
    var wall: Duration = .zero
    /// Time to first token of each request, in milliseconds.
    var timesToFirstToken: [Double] = []
    /// Gaps between consecutive content chunks of a request, in milliseconds.
    var interTokenGaps: [Double] = []
    /// Each request's answer text, in the order the requests ended.
    var texts: [String] = []
    /// Tokens the server drafted by speculative decoding and those it kept, where it reports them
    /// (hybrid serve: `completion_tokens_details`; llama-server: `timings.draft_n`, `draft_n_accepted`).
    var draftTokens = 0
    var acceptedDraftTokens = 0

    /// Adds another request's or stream's counts (the wall time stays).
    mutating func add(_ other: Result) {
      tokens += other.tokens
      promptTokens += other.promptTokens
      timesToFirstToken += other.timesToFirstToken
      interTokenGaps += other.interTokenGaps
      texts += other.texts
      draftTokens += other.draftTokens
      acceptedDraftTokens += other.acceptedDraftTokens
    }

    /// Aggregate output tokens per second.
    var tokensPerSecond: Double { wall.seconds > 0 ? Double(tokens) / wall.seconds : 0 }
  }

  /// The API root, version included (`…/v1`, `…/v1beta/openai`).
  let apiRoot: URL
  let model: String
  let outputTokens: Int
  /// 0: greedy (seed 0). Above it, sampled with no seed and no `top_p`: each server's own default
  /// chain (hybrid serve: top-k 64, then top-p 0.9; llama-server: top-k 40, top-p 0.95, min-p 0.05).
  let temperature: Double
  private let client: HTTPClient
  /// Requests sent again because the connection closed before any answer.
  let retries = RetryCounter()

  final class RetryCounter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func increment() { value.withLock { $0 += 1 } }
  }

  /// An image sent with every prompt (`image_url` with this `data:` URL, after the text), or `nil`.
  var imageDataURL: String?

  init(apiRoot: URL, model: String, outputTokens: Int, temperature: Double = 0, imageDataURL: String? = nil) {
    self.imageDataURL = imageDataURL
    self.apiRoot = apiRoot
    self.model = model
    self.outputTokens = outputTokens
    self.temperature = temperature
    var configuration = HTTPClient.Configuration()
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(600))
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
    client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }

  func shutdown() async { try? await client.shutdown() }

  /// Runs `width` streams of `requestsPerStream` requests each; `prompt` gives each request's
  /// prompt by stream and request (by default a story to write, different for each).
  func run(width: Int, requestsPerStream: Int,
           prompt: @escaping @Sendable (_ stream: Int, _ request: Int) -> String = Self.storyPrompt) async throws -> Result {
    let started = ContinuousClock.now
    let results = try await withThrowingTaskGroup(of: Result.self) { group in
      for stream in 0..<width {
        group.addTask {
          var total = Result()
          for request in 0..<requestsPerStream { total.add(try await send(prompt: prompt(stream, request))) }
          return total
        }
      }
      return try await group.reduce(into: [Result]()) { $0.append($1) }
    }
    var merged = Result()
    for result in results { merged.add(result) }
    merged.wall = ContinuousClock.now - started
    return merged
  }

  /// A story to write, different for each stream and request.
  static func storyPrompt(stream: Int, request: Int) -> String {
    "Story \(stream)-\(request): write a long tale about a lighthouse keeper number \(stream)."
  }

  /// Whether `error` means the connection closed before any response.
  private static func closedBeforeAnswering(_ error: any Error) -> Bool {
    (error as? ChannelError) == .ioOnClosedChannel || (error as? HTTPClientError) == .remoteConnectionClosed
  }

  /// One streamed request: its tokens (from usage; content chunks when the server sends none),
  /// time to first token and inter-token gaps.
  func send(prompt: String) async throws -> Result {
    do {
      return try await stream(prompt: prompt)
    } catch let error as BenchmarkError {
      throw error
    } catch {
      throw BenchmarkError.measurementFailed("\(apiRoot): \(error)")
    }
  }

  private func stream(prompt: String) async throws -> Result {
    let message = imageDataURL.map { url in
      ChatMessage(role: "user", content: .parts([.text(prompt), ChatMessage.Part(type: "image_url", imageURL: .init(url: url))]))
    } ?? ChatMessage(role: "user", text: prompt)
    var body = ChatCompletionRequest(model: model, messages: [message], stream: true,
                                     streamOptions: .init(includeUsage: true), maxTokens: outputTokens, temperature: temperature)
    if temperature == 0 { body.seed = 0 }
    var request = HTTPClientRequest(url: apiRoot.appendingPathComponent("chat/completions").absoluteString)
    request.method = .POST
    request.headers.add(name: "content-type", value: "application/json")
    // A connection per request, for both servers alike: llama-server (cpp-httplib) closes idle
    // keep-alive connections on its own schedule, and reusing one it just closed fails the request.
    request.headers.add(name: "connection", value: "close")
    request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
    let start = ContinuousClock.now
    var attempt = 1
    var response: HTTPClientResponse
    while true {
      do {
        response = try await client.execute(request, timeout: .seconds(600))
        break
      } catch where attempt < 3 && Self.closedBeforeAnswering(error) {
        // The server closed the connection before answering (seen with llama-server when 8
        // connections open at once): nothing was generated, so the request goes again.
        attempt += 1
        retries.increment()
      }
    }
    guard response.status.code == 200 else {
      let text = (try? await response.body.collect(upTo: 1 << 16)).map { String(buffer: $0) } ?? ""
      throw BenchmarkError.measurementFailed("\(apiRoot): HTTP \(response.status.code) \(text.prefix(300))")
    }
    var parser = ServerSentEventParser()
    var result = Result()
    var last: ContinuousClock.Instant?
    var contentChunks = 0
    var reportedTokens: Int?
    var text = ""
    for try await buffer in response.body {
      let now = ContinuousClock.now
      for event in parser.parse(buffer.readableBytesView) where event.data != "[DONE]" {
        guard let chunk = try? JSONDecoder().decode(ChatCompletionChunk.self, from: Data(event.data.utf8)) else { continue }
        if let usage = chunk.usage {
          reportedTokens = usage.completionTokens
          result.promptTokens = [usage.promptTokens]
          if let details = usage.completionTokensDetails, let accepted = details.acceptedPredictionTokens {
            result.acceptedDraftTokens = accepted
            result.draftTokens = accepted + (details.rejectedPredictionTokens ?? 0)
          }
        }
        if event.data.contains("\"draft_n\""), let drafts = Self.llamaServerDrafts(in: event.data) {
          (result.draftTokens, result.acceptedDraftTokens) = drafts
        }
        text += chunk.choices.compactMap(\.delta.content).joined()
        guard chunk.choices.contains(where: { !($0.delta.content ?? "").isEmpty }) else { continue }
        contentChunks += 1
        if let last { result.interTokenGaps.append((now - last).seconds * 1000) } else {
          result.timesToFirstToken.append((now - start).seconds * 1000)
        }
        last = now
      }
    }
    result.tokens = reportedTokens ?? contentChunks
    result.texts = [text]
    return result
  }

  /// llama-server's speculation counts from a chunk's `timings` (`draft_n`, `draft_n_accepted`).
  static func llamaServerDrafts(in data: String) -> (drafted: Int, accepted: Int)? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any],
          let timings = object["timings"] as? [String: Any], let drafted = timings["draft_n"] as? Int else { return nil }
    return (drafted, timings["draft_n_accepted"] as? Int ?? 0)
  }
}
