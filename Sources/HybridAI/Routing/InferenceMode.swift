/// Firebase AI Logic's four inference modes: which of an on-device and a cloud model answers.
///
/// ```swift
/// let model = InferenceMode.preferOnDevice.model(onDevice: SystemLanguageModel.default, cloud: cloud)
/// let session = GenerativeModelSession(model: model)
/// ```
public enum InferenceMode: String, CaseIterable, Sendable, Codable {
  /// The on-device model when it can serve the request, else the cloud (saying why).
  case preferOnDevice = "prefer-on-device"
  /// The cloud model; the on-device model only when the cloud cannot be reached.
  case preferCloud = "prefer-cloud"
  /// Only the on-device model.
  case onDevice = "on-device"
  /// Only the cloud model.
  case cloud

  /// The model a session uses in this mode.
  public func model(onDevice device: any LanguageModel, cloud remote: any LanguageModel) -> any LanguageModel {
    switch self {
    case .preferOnDevice: HybridModel(primary: device, secondary: remote)
    case .preferCloud: HybridModel(primary: remote, secondary: device)
    case .onDevice: device
    case .cloud: remote
    }
  }
}
