import HybridAI
import HybridAIOnDevice
import Synchronization

/// The real batched model, passed through unchanged, recording the requests it got and how each
/// generation ended: how many text deltas it produced and whether its consumer went away before the end.
final class ObservedModel: LanguageModel {
  struct Generation: Sendable {
    var deltas = 0
    var completed = false
    var cancelled = false
    var ended: Bool { completed || cancelled }
  }

  let base: BatchedLanguageModel
  let generations = Mutex<[Generation]>([])
  let requests = Mutex<[GenerationRequest]>([])

  init(_ base: BatchedLanguageModel) { self.base = base }

  var modelIdentifier: String { base.modelIdentifier }
  var source: ModelSource { base.source }
  var availability: ModelAvailability { base.availability }
  var availabilityDetail: String? { base.availabilityDetail }
  func supports(_ request: GenerationRequest) async -> RequestSupport { await base.supports(request) }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    requests.withLock { $0.append(request) }
    let index = generations.withLock { $0.append(Generation()); return $0.count - 1 }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        for try await event in base.generate(request) {
          if case .textDelta = event { generations.withLock { $0[index].deltas += 1 } }
          if case .completed = event { generations.withLock { $0[index].completed = true } }
          continuation.yield(event)
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { termination in
      if case .cancelled = termination { self.generations.withLock { $0[index].cancelled = true } }
      task.cancel()
    }
    return stream
  }
}
