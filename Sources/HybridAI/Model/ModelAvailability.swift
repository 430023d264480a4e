/// Whether a language model can be used right now, and if not, why.
public enum ModelAvailability: Sendable, Hashable, CustomStringConvertible {
  /// The model is ready to answer.
  case available
  /// The model cannot answer; the reason says what to do about it.
  case unavailable(UnavailableReason)

  /// Why a model is unavailable.
  public enum UnavailableReason: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The runtime cannot run this model here: too little memory, an unsupported CPU, no runtime.
    case deviceNotEligible
    /// Switched off by the user or by the app's configuration (e.g. `HYBRIDAI_ON_DEVICE=off`).
    case disabled
    /// The model's weights are not there yet: the file is absent or still downloading.
    case modelNotReady
    /// The model file is present but is not a loadable model (corrupt, truncated, wrong format).
    case invalidModelFile

    public var description: String {
      switch self {
      case .deviceNotEligible: "this device cannot run the model"
      case .disabled: "the model is disabled"
      case .modelNotReady: "the model is not downloaded yet"
      case .invalidModelFile: "the model file is not a loadable model"
      }
    }
  }

  public var description: String {
    switch self {
    case .available: "available"
    case .unavailable(let reason): "unavailable (\(reason))"
    }
  }
}
