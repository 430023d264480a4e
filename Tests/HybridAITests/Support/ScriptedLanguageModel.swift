import HybridAI
import Synchronization

/// A test double for the core's session and routing logic (like NIOEmbedded for channels): it
/// answers with scripted text deltas, optionally slowly or failing after some of them, and records
/// what it was asked and whether it saw cancellation. Real-model behaviour is tested in
/// HybridAIOnDeviceTests, real cloud behaviour in HybridAIGeminiTests and HybridAIServerTests.
final class ScriptedLanguageModel: LanguageModel {
  struct Recorded {
    var requests: [GenerationRequest] = []
    var sawCancellation = false
    var deltasSent = 0
  }

  let modelIdentifier: String
  let source: ModelSource
  let deltas: [String]
  let delay: Duration
  let availability: ModelAvailability
  let support: RequestSupport
  let completes: Bool
  /// Thrown after `failAfterDeltas` deltas, when set.
  let failure: (any Error & Sendable)?
  let failAfterDeltas: Int
  let recorded = Mutex(Recorded())

  init(identifier: String = "scripted", source: ModelSource = .onDevice,
       deltas: [String] = ["Hello", ", ", "world", "!"], delay: Duration = .zero,
       availability: ModelAvailability = .available, support: RequestSupport = .supported, completes: Bool = true,
       failure: (any Error & Sendable)? = nil, failAfterDeltas: Int = 0) {
    self.modelIdentifier = identifier
    self.source = source
    self.deltas = deltas
    self.delay = delay
    self.availability = availability
    self.support = support
    self.completes = completes
    self.failure = failure
    self.failAfterDeltas = failAfterDeltas
  }

  var requestCount: Int { recorded.withLock { $0.requests.count } }

  func supports(_ request: GenerationRequest) async -> RequestSupport { support }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    recorded.withLock { $0.requests.append(request) }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        for (index, delta) in deltas.enumerated() {
          if let failure, index == failAfterDeltas { throw failure }
          if delay > .zero { try await Task.sleep(for: delay) }
          try Task.checkCancellation()
          continuation.yield(.textDelta(delta))
          recorded.withLock { $0.deltasSent += 1 }
        }
        if let failure, failAfterDeltas >= deltas.count { throw failure }
        if completes {
          continuation.yield(.completed(RawResponse(
            modelVersion: "\(modelIdentifier)-1", source: source,
            usage: Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: deltas.count),
            finishReason: .stop)))
        }
        continuation.finish()
      } catch {
        if error is CancellationError { recorded.withLock { $0.sawCancellation = true } }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}

/// An error that says whether the model was reachable, as cloud backends' errors do.
struct ScriptedCloudError: ReachabilityError, Equatable {
  var offlineReason: OfflineReason?
  var status = 0
}
