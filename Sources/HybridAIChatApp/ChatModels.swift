import HybridAI

/// The models the web chat can answer with: `hybrid serve`'s own on-device model and, when one
/// is configured, a cloud model. A conversation's ``InferenceMode`` picks between them per
/// message, as the library's sessions do.
public struct ChatModels: Sendable {
  /// The model that runs here (llama.cpp in process).
  public var onDevice: (any LanguageModel)?
  /// The cloud model (Gemini, an OpenAI-compatible server, or another `hybrid serve`).
  public var cloud: (any LanguageModel)?

  public init(onDevice: (any LanguageModel)?, cloud: (any LanguageModel)? = nil) {
    self.onDevice = onDevice
    self.cloud = cloud
  }

  /// The modes these models can serve: all four with both, else the one model's own.
  public var availableModes: [InferenceMode] {
    switch (onDevice, cloud) {
    case (.some, .some): InferenceMode.allCases
    case (.some, nil): [.onDevice]
    case (nil, .some): [.cloud]
    case (nil, nil): []
    }
  }

  /// The mode used when a message names none: prefer on-device when both exist.
  public var defaultMode: InferenceMode? {
    availableModes.contains(.preferOnDevice) ? .preferOnDevice : availableModes.first
  }

  /// The session model for `mode`.
  /// - Throws: ``ChatAppError/modeUnavailable(_:available:)`` when a model it needs is not configured.
  public func model(for mode: InferenceMode) throws(ChatAppError) -> any LanguageModel {
    switch (mode, onDevice, cloud) {
    case (_, let device?, let remote?): return mode.model(onDevice: device, cloud: remote)
    case (.onDevice, let device?, nil): return device
    case (.cloud, nil, let remote?): return remote
    default: throw .modeUnavailable(mode, available: availableModes)
    }
  }
}
