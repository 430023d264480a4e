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

  /// What the model can take and give (default: ``ModelCapabilities/text``).
  var capabilities: ModelCapabilities { get }

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

  /// Tokens the model's context window holds: the prompt and the answer together. On device the
  /// configured size (capped at the model's training context); for a cloud model the service's
  /// input limit. Throws ``GenerationError/unsupportedCapability(_:)`` when the model cannot tell
  /// (the default).
  var contextSize: Int { get async throws }

  /// The prompt tokens `request` takes as the model reads it: instructions, tool declarations,
  /// history and the last prompt — what the answer reports in ``Usage/promptTokens``. A response
  /// schema adds none on device (it constrains decoding). Throws
  /// ``GenerationError/unsupportedCapability(_:)`` when the model cannot count (the default).
  func tokenCount(for request: GenerationRequest) async throws -> Int

  /// Makes the next request that starts like `request` answer sooner: loads the weights and fills
  /// the cache with `request`'s prompt on device; checks the model and opens the connection in the
  /// cloud. Throws the typed error a request would (an unavailable model, a missing file, …). The
  /// default checks ``readiness(for:)`` only.
  func prewarm(_ request: GenerationRequest) async throws
}

extension LanguageModel {
  public var availabilityDetail: String? { nil }

  public var capabilities: ModelCapabilities { .text }

  public func prepareAssets() {}

  public var contextSize: Int {
    get async throws { throw GenerationError.unsupportedCapability("\(modelIdentifier) does not report its context size") }
  }

  public func tokenCount(for request: GenerationRequest) async throws -> Int {
    throw GenerationError.unsupportedCapability("\(modelIdentifier) cannot count tokens")
  }

  public func prewarm(_ request: GenerationRequest) async throws {
    try await checkReadiness(for: request)
  }

  /// Throws the typed error for a model that is not ready for `request` (see ``readiness(for:)``).
  public func checkReadiness(for request: GenerationRequest) async throws {
    if let error = await readiness(for: request).error(modelIdentifier: modelIdentifier) { throw error }
  }

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
    if let reason = request.unsupportedModality(for: capabilities) { return .unsupported(reason) }
    if case .unsupported(let reason) = await supports(request) { return .unsupported(reason) }
    return .ready
  }
}
