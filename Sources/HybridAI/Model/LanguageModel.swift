/// A model that can answer a ``GenerativeModelSession``: on-device, in the cloud, or a hybrid of both.
///
/// Backends (``HybridAIOnDevice``'s `SystemLanguageModel`, the Gemini model, …) implement this
/// protocol. A session asks the model three things for every request, in order:
/// 1. ``availability`` — cheap, synchronous, without side effects (reading it never starts a
///    download or a load; ``prepareAssets()`` does);
/// 2. ``supports(_:)`` — whether this particular request can be served (context fits, input kinds, …);
/// 3. ``generate(_:)`` — the answer, as a stream of ``GenerationEvent``s.
///
/// Steps 1 and 2 are one check, ``readiness(for:)``, used by sessions, ``HybridModel`` and
/// `hybrid serve` alike.
///
/// Generation must stop promptly when the consuming task is cancelled.
public protocol LanguageModel: Sendable {
  /// A short, stable name for the model, reported as ``RawResponse/modelVersion`` when the
  /// backend has nothing more precise.
  var modelIdentifier: String { get }

  /// Whether the model runs on this device or in the cloud.
  var source: ModelSource { get }

  /// Whether the model can be used at all right now. Reading it starts nothing.
  var availability: ModelAvailability { get }

  /// Why the model is unavailable, in words (a path, a limit, a setting), or `nil`.
  var availabilityDetail: String? { get }

  /// Whether the model can serve this request (for example: does the prompt fit the context window).
  func supports(_ request: GenerationRequest) async -> RequestSupport

  /// Starts what the model needs to become available, in the background, and returns at once:
  /// for a delivered on-device model, the download of its file. Does nothing when there is
  /// nothing to start (the default).
  func prepareAssets()

  /// Generates the answer to the last prompt of `request.transcript`.
  ///
  /// The stream yields zero or more ``GenerationEvent/textDelta(_:)`` events and ends with exactly
  /// one ``GenerationEvent/completed(_:)`` event, or throws.
  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error>
}

extension LanguageModel {
  public var availabilityDetail: String? { nil }

  public func prepareAssets() {}

  /// `true` when ``availability`` is ``ModelAvailability/available``.
  public var isAvailable: Bool { availability == .available }
}

/// Whether a model can take a request now: the one check behind every routing decision.
public enum ModelReadiness: Sendable, Equatable {
  /// It can: available, and it supports the request.
  case ready
  /// It cannot be used at all right now.
  case unavailable(ModelAvailability.UnavailableReason, detail: String?)
  /// It is available but cannot serve this request.
  case unsupported(UnsupportedReason)

  /// The typed error for a model that is not ready, or `nil` when it is.
  public func error(modelIdentifier: String) -> GenerationError? {
    switch self {
    case .ready: nil
    case .unavailable(let reason, let detail): .modelUnavailable(reason, detail: detail ?? modelIdentifier)
    case .unsupported(let reason): .unsupported(reason)
    }
  }
}

extension LanguageModel {
  /// Whether this model can take `request` now: ``availability`` first (cheap), then
  /// ``supports(_:)``. A model whose assets are not ready (``ModelAvailability/UnavailableReason/modelNotReady``)
  /// is asked to ``prepareAssets()`` them, so a request that cannot use it now starts what will let the
  /// next one.
  public func readiness(for request: GenerationRequest) async -> ModelReadiness {
    if case .unavailable(let reason) = availability {
      if reason == .modelNotReady { prepareAssets() }
      return .unavailable(reason, detail: availabilityDetail)
    }
    if case .unsupported(let reason) = await supports(request) { return .unsupported(reason) }
    return .ready
  }
}
