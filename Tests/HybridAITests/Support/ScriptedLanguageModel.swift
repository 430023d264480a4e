import HybridAI
import Synchronization

/// A test double for the core's session logic (like NIOEmbedded for channels): it answers with
/// scripted text deltas, optionally slowly, and records what it was asked and whether it saw
/// cancellation. Real-model behaviour is tested in HybridAIOnDeviceTests.
final class ScriptedLanguageModel: LanguageModel {
  struct Recorded {
    var requests: [Transcript] = []
    var sawCancellation = false
    var deltasSent = 0
  }

  let modelIdentifier = "scripted-model"
  let deltas: [String]
  let delay: Duration
  let availability: ModelAvailability
  let support: RequestSupport
  let completes: Bool
  let recorded = Mutex(Recorded())

  init(deltas: [String] = ["Hello", ", ", "world", "!"], delay: Duration = .zero,
       availability: ModelAvailability = .available, support: RequestSupport = .supported, completes: Bool = true) {
    self.deltas = deltas
    self.delay = delay
    self.availability = availability
    self.support = support
    self.completes = completes
  }

  func supports(_ request: GenerationRequest) async -> RequestSupport { support }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    recorded.withLock { $0.requests.append(request.transcript) }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        for delta in deltas {
          if delay > .zero { try await Task.sleep(for: delay) }
          try Task.checkCancellation()
          continuation.yield(.textDelta(delta))
          recorded.withLock { $0.deltasSent += 1 }
        }
        if completes {
          continuation.yield(.completed(RawResponse(
            modelVersion: "scripted-1", usage: Usage(promptTokens: 10, cachedPromptTokens: 4, outputTokens: deltas.count),
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
