import HybridAI
import Synchronization

/// A real model passed through unchanged, recording the requests it got and how each generation
/// ended: how many text deltas it produced and whether its consumer went away before the end.
public final class ObservedLanguageModel<Base: LanguageModel>: LanguageModel {
  /// How one generation went.
  public struct Generation: Sendable {
    public var deltas = 0
    public var completed = false
    public var cancelled = false
    /// Whether it completed or its consumer went away.
    public var ended: Bool { completed || cancelled }
  }

  /// The observed model.
  public let base: Base
  private let observed = Mutex<(requests: [GenerationRequest], generations: [Generation])>(([], []))

  public init(_ base: Base) { self.base = base }

  /// The requests so far, in order.
  public var requests: [GenerationRequest] { observed.withLock { $0.requests } }
  /// One record per generation, in order.
  public var generations: [Generation] { observed.withLock { $0.generations } }
  /// How many generations were asked for.
  public var calls: Int { observed.withLock { $0.requests.count } }

  public var modelIdentifier: String { base.modelIdentifier }
  public var source: ModelSource { base.source }
  public var availability: ModelAvailability { base.availability }
  public var availabilityDetail: String? { base.availabilityDetail }
  public var capabilities: ModelCapabilities { base.capabilities }
  public func supports(_ request: GenerationRequest) async -> RequestSupport { await base.supports(request) }
  public func prepareAssets() { base.prepareAssets() }
  public var contextSize: Int { get async throws { try await base.contextSize } }
  public func tokenCount(for request: GenerationRequest) async throws -> Int { try await base.tokenCount(for: request) }
  public func prewarm(_ request: GenerationRequest) async throws { try await base.prewarm(request) }

  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let index = observed.withLock {
      $0.requests.append(request)
      $0.generations.append(Generation())
      return $0.generations.count - 1
    }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task { [base] in
      do {
        for try await event in base.generate(request) {
          if case .textDelta = event { self.observed.withLock { $0.generations[index].deltas += 1 } }
          if case .completed = event { self.observed.withLock { $0.generations[index].completed = true } }
          continuation.yield(event)
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { termination in
      if case .cancelled = termination { self.observed.withLock { $0.generations[index].cancelled = true } }
      task.cancel()
    }
    return stream
  }
}
