import HybridAI
import Synchronization

/// The one scripted `LanguageModel` double of the test suites (in the spirit of NIOEmbedded for
/// channels): it answers each request with scripted events (text deltas, tool calls), optionally
/// slowly or failing part-way, reports the availability and support it was given, and records what
/// it was asked and whether its consumer went away. Real-model behaviour is tested with the real
/// llama.cpp model (HybridAIOnDeviceTests), real cloud behaviour against real HTTP servers.
public final class ScriptedLanguageModel: LanguageModel {
  /// The events of answer number `index` (0-based) to `request`. When they hold no
  /// ``GenerationEvent/completed(_:)``, the model adds one (see ``completion(outputTokens:)``).
  public typealias Script = @Sendable (_ request: GenerationRequest, _ index: Int) -> [GenerationEvent]

  /// One round of a tool loop: the model either calls tools or answers with text.
  public enum Round: Sendable {
    case text(String)
    case toolCalls([Transcript.ToolCall])
  }

  /// What the model was asked and how its answers went.
  public struct Recorded: Sendable {
    /// Every request, in order.
    public var requests: [GenerationRequest] = []
    /// Whether a generation saw its task cancelled.
    public var sawCancellation = false
    /// Generations that saw their task cancelled.
    public var cancellations = 0
    /// Text deltas handed to consumers, over all answers.
    public var deltasSent = 0
  }

  public let modelIdentifier: String
  public let source: ModelSource
  public let availability: ModelAvailability
  public let availabilityDetail: String?
  public let capabilities: ModelCapabilities
  private let support: @Sendable (GenerationRequest) -> RequestSupport
  private let script: Script
  private let modelVersion: String
  private let usage: Usage?
  private let delay: Duration
  private let failure: (any Error & Sendable)?
  private let failAfterEvents: Int
  private let completes: Bool
  private let recorded = Mutex(Recorded())

  /// A model answering every request with `script`'s events.
  /// - Parameters:
  ///   - modelVersion: reported in completions; `"<identifier>-1"` by default.
  ///   - usage: reported in completions; by default 10 prompt tokens (4 cached) and one output token per text delta.
  ///   - delay: a pause before each event.
  ///   - failure: thrown after `failAfterEvents` events, when set.
  ///   - completes: `false` ends each answer without a completion (a truncated stream).
  public init(identifier: String = "scripted", source: ModelSource = .onDevice,
              availability: ModelAvailability = .available, availabilityDetail: String? = nil,
              capabilities: ModelCapabilities = .text,
              support: @escaping @Sendable (GenerationRequest) -> RequestSupport = { _ in .supported },
              modelVersion: String? = nil, usage: Usage? = nil, delay: Duration = .zero,
              failure: (any Error & Sendable)? = nil, failAfterEvents: Int = 0, completes: Bool = true,
              script: @escaping Script) {
    self.modelIdentifier = identifier
    self.source = source
    self.availability = availability
    self.availabilityDetail = availabilityDetail
    self.capabilities = capabilities
    self.support = support
    self.modelVersion = modelVersion ?? "\(identifier)-1"
    self.usage = usage
    self.delay = delay
    self.failure = failure
    self.failAfterEvents = failAfterEvents
    self.completes = completes
    self.script = script
  }

  /// A model answering every request with the same text deltas.
  public convenience init(identifier: String = "scripted", source: ModelSource = .onDevice,
                          deltas: [String] = ["Hello", ", ", "world", "!"],
                          availability: ModelAvailability = .available, availabilityDetail: String? = nil,
                          capabilities: ModelCapabilities = .text,
                          support: RequestSupport = .supported, modelVersion: String? = nil, usage: Usage? = nil,
                          delay: Duration = .zero, failure: (any Error & Sendable)? = nil, failAfterDeltas: Int = 0,
                          completes: Bool = true) {
    self.init(identifier: identifier, source: source, availability: availability, availabilityDetail: availabilityDetail,
              capabilities: capabilities, support: { _ in support }, modelVersion: modelVersion, usage: usage, delay: delay, failure: failure,
              failAfterEvents: failAfterDeltas, completes: completes) { _, _ in deltas.map(GenerationEvent.textDelta) }
  }

  /// A cloud model whose answers are scripted per round of the tool loop: `rounds` in order, then
  /// the last one repeats, or with `cycling` they all start over. Each completion carries the
  /// round's index as provider content (provider `"test"`).
  public static func rounds(_ rounds: [Round], cycling: Bool = false,
                            identifier: String = "round-scripted") -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: identifier, source: .cloud, usage: Usage(promptTokens: 10, outputTokens: 5)) { _, index in
      let round = rounds[cycling ? index % rounds.count : min(index, rounds.count - 1)]
      let answer: GenerationEvent = switch round {
      case .text(let text): .textDelta(text)
      case .toolCalls(let calls): .toolCalls(calls)
      }
      return [answer, .completed(RawResponse(
        modelVersion: "\(identifier)-1", source: .cloud, usage: Usage(promptTokens: 10, outputTokens: 5), finishReason: .stop,
        providerContent: ProviderContent(provider: "test", content: ["round": .number(Double(index))])))]
    }
  }

  /// Everything recorded so far.
  public var recording: Recorded { recorded.withLock { $0 } }
  /// The requests so far, in order.
  public var requests: [GenerationRequest] { recorded.withLock { $0.requests } }
  /// How many requests it got.
  public var requestCount: Int { recorded.withLock { $0.requests.count } }

  public func supports(_ request: GenerationRequest) async -> RequestSupport { support(request) }

  /// The completion added after a script's events.
  public func completion(outputTokens: Int) -> RawResponse {
    RawResponse(modelVersion: modelVersion, source: source,
                usage: usage ?? Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: outputTokens), finishReason: .stop)
  }

  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let index = recorded.withLock { $0.requests.append(request); return $0.requests.count - 1 }
    var events = script(request, index)
    if completes && !events.contains(where: { if case .completed = $0 { true } else { false } }) {
      events.append(.completed(completion(outputTokens: events.filter { if case .textDelta = $0 { true } else { false } }.count)))
    }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task { [delay, failure, failAfterEvents] in
      do {
        for (position, event) in events.enumerated() {
          if let failure, position == failAfterEvents { throw failure }
          if delay > .zero { try await Task.sleep(for: delay) }
          try Task.checkCancellation()
          continuation.yield(event)
          if case .textDelta = event { self.recorded.withLock { $0.deltasSent += 1 } }
        }
        if let failure, failAfterEvents >= events.count { throw failure }
        continuation.finish()
      } catch {
        if error is CancellationError { self.recorded.withLock { $0.sawCancellation = true; $0.cancellations += 1 } }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}
