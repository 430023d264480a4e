import Logging

/// A model that answers with its primary model when it can, and otherwise with its secondary:
/// Firebase AI Logic's "prefer on-device" and "prefer cloud" inference modes (its hybrid experiences).
///
/// ```swift
/// let preferOnDevice = GenerativeModelSession(model: .hybrid(primary: SystemLanguageModel.default, secondary: cloud))
/// let preferCloud    = GenerativeModelSession(model: .hybrid(primary: cloud, secondary: SystemLanguageModel.default))
/// ```
///
/// Each request is routed afresh:
/// - the secondary answers when the primary is unavailable (``ModelAvailability``) or does not
///   support the request (``LanguageModel/supports(_:)``: context too long, unsupported input);
/// - the secondary answers when the primary fails *before its first chunk* with an error whose
///   ``ReachabilityError/offlineReason`` is set (DNS failure, refused or timed-out connection, …);
/// - every other failure of the primary is thrown, and cancellation never falls back.
///
/// The answer's ``RawResponse/fallback`` says when and why the secondary answered; every fallback
/// is logged at warning level. While answering, it reports its choice first as
/// ``GenerationEvent/routed(to:fallback:)`` (the session's ``GenerativeModelSession/ResponseStream/Event/modelSelected(_:fallback:)``).
public struct HybridModel: LanguageModel {
  /// The model asked first.
  public let primary: any LanguageModel
  /// The model that answers when the primary cannot.
  public let secondary: any LanguageModel

  private let logger: Logger

  public init(primary: some LanguageModel, secondary: some LanguageModel) {
    self.primary = primary
    self.secondary = secondary
    var logger = Logger(label: "HybridAI.hybrid")
    logger[metadataKey: "primary"] = "\(primary.modelIdentifier)"
    logger[metadataKey: "secondary"] = "\(secondary.modelIdentifier)"
    self.logger = logger
  }

  public var modelIdentifier: String { "hybrid(\(primary.modelIdentifier), \(secondary.modelIdentifier))" }

  /// The primary model's source; each answer reports its own in ``RawResponse/source``.
  public var source: ModelSource { primary.source }

  /// Available when either model is.
  public var availability: ModelAvailability {
    if primary.isAvailable { return .available }
    return secondary.availability
  }

  public var availabilityDetail: String? {
    guard !isAvailable else { return nil }
    return "\(primary.modelIdentifier): \(primary.availabilityDetail ?? "\(primary.availability)"); "
      + "\(secondary.modelIdentifier): \(secondary.availabilityDetail ?? "\(secondary.availability)")"
  }

  /// What either model can take and give.
  public var capabilities: ModelCapabilities { primary.capabilities.union(secondary.capabilities) }

  /// Supported when the primary can serve the request, or else the secondary can.
  public func supports(_ request: GenerationRequest) async -> RequestSupport {
    if await primary.readiness(for: request) == .ready { return .supported }
    if let reason = request.unsupportedModality(for: secondary.capabilities) { return .unsupported(reason) }
    return await secondary.supports(request)
  }

  /// Prepares both models.
  public func prepareAssets() {
    primary.prepareAssets()
    secondary.prepareAssets()
  }

  /// The context size of the model that answers when nothing else decides: the primary when it is
  /// available, else the secondary.
  public var contextSize: Int {
    get async throws { try await (primary.isAvailable ? primary : secondary).contextSize }
  }

  /// The count of the model that would answer `request` now (see ``supports(_:)``).
  public func tokenCount(for request: GenerationRequest) async throws -> Int {
    try await answeringModel(for: request).tokenCount(for: request)
  }

  /// Warms the model that would answer `request` now.
  public func prewarm(_ request: GenerationRequest) async throws {
    try await answeringModel(for: request).prewarm(request)
  }

  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        if let reason = await reasonToSkipPrimary(for: request) {
          try await answerWithSecondary(request, because: reason, into: continuation)
        } else {
          try await answerWithPrimary(request, into: continuation)
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  // MARK: - Routing

  /// The primary when it is ready for `request`, else the secondary.
  private func answeringModel(for request: GenerationRequest) async -> any LanguageModel {
    await primary.readiness(for: request) == .ready ? primary : secondary
  }

  /// Why the primary cannot take this request at all, or `nil` when it can.
  private func reasonToSkipPrimary(for request: GenerationRequest) async -> FallbackReason? {
    switch await primary.readiness(for: request) {
    case .ready: nil
    case .unavailable(let reason, let detail): .unavailable(reason, detail: detail)
    case .unsupported(let reason): .unsupported(reason.description)
    }
  }

  private func answerWithPrimary(_ request: GenerationRequest,
                                 into continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation) async throws {
    var forwardedAny = false
    continuation.yield(.routed(to: primary.modelIdentifier, fallback: nil))
    do {
      for try await event in primary.generate(request) {
        if case .routed = event {} else { forwardedAny = true }
        continuation.yield(event)
      }
    } catch {
      guard !forwardedAny, !Task.isCancelled, !(error is CancellationError),
            let offline = (error as? any ReachabilityError)?.offlineReason
      else { throw error }
      try await answerWithSecondary(request, because: .offline(offline), into: continuation)
    }
  }

  private func answerWithSecondary(_ request: GenerationRequest, because reason: FallbackReason,
                                   into continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation) async throws {
    try Task.checkCancellation()
    logger.warning("falling back to the secondary model", metadata: ["reason": "\(reason)"])
    if let error = await secondary.readiness(for: request).error(modelIdentifier: secondary.modelIdentifier) {
      throw error
    }
    let fallback = Fallback(from: primary.modelIdentifier, reason: reason)
    continuation.yield(.routed(to: secondary.modelIdentifier, fallback: fallback))
    for try await event in secondary.generate(request) {
      switch event {
      case .routed(let model, let innerFallback):
        // A routing secondary chose within itself; the outer fallback is the one that matters.
        continuation.yield(.routed(to: model, fallback: innerFallback ?? fallback))
      case .textDelta, .toolCalls, .artifact, .logProbabilities:
        continuation.yield(event)
      case .completed(var raw):
        raw.fallback = fallback
        continuation.yield(.completed(raw))
      }
    }
  }
}

extension LanguageModel where Self == HybridModel {
  /// A hybrid of two models: `primary` answers when it can, `secondary` otherwise (see ``HybridModel``).
  public static func hybrid(primary: some LanguageModel, secondary: some LanguageModel) -> HybridModel {
    HybridModel(primary: primary, secondary: secondary)
  }
}
