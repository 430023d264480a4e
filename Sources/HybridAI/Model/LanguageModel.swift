/// A model that can answer a ``GenerativeModelSession``: on-device, in the cloud, or a hybrid of both.
///
/// Backends (``HybridAIOnDevice``'s `SystemLanguageModel`, the Gemini model, …) implement this
/// protocol. A session asks the model three things for every request, in order:
/// 1. ``availability`` — cheap, synchronous, never loads weights twice;
/// 2. ``supports(_:)`` — whether this particular request can be served (context fits, input kinds, …);
/// 3. ``generate(_:)`` — the answer, as a stream of ``GenerationEvent``s.
///
/// Generation must stop promptly when the consuming task is cancelled.
public protocol LanguageModel: Sendable {
  /// A short, stable name for the model, reported as ``RawResponse/modelVersion`` when the
  /// backend has nothing more precise.
  var modelIdentifier: String { get }

  /// Whether the model runs on this device or in the cloud.
  var source: ModelSource { get }

  /// Whether the model can be used at all right now.
  var availability: ModelAvailability { get }

  /// Why the model is unavailable, in words (a path, a limit, a setting), or `nil`.
  var availabilityDetail: String? { get }

  /// Whether the model can serve this request (for example: does the prompt fit the context window).
  func supports(_ request: GenerationRequest) async -> RequestSupport

  /// Generates the answer to the last prompt of `request.transcript`.
  ///
  /// The stream yields zero or more ``GenerationEvent/textDelta(_:)`` events and ends with exactly
  /// one ``GenerationEvent/completed(_:)`` event, or throws.
  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error>
}

extension LanguageModel {
  public var availabilityDetail: String? { nil }

  /// `true` when ``availability`` is ``ModelAvailability/available``.
  public var isAvailable: Bool { availability == .available }
}
