import ArgumentParser
import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice

/// Firebase AI Logic's four inference modes (prefer on-device, prefer cloud, only on-device, only cloud).
enum InferenceMode: String, ExpressibleByArgument, CaseIterable, Sendable {
  case preferOnDevice = "prefer-on-device"
  case preferCloud = "prefer-cloud"
  case onDevice = "on-device"
  case cloud

  /// The session's model for this mode.
  func model(onDevice device: SystemLanguageModel, cloud remote: GeminiModel) -> any LanguageModel {
    switch self {
    case .preferOnDevice: HybridModel(primary: device, secondary: remote)
    case .preferCloud: HybridModel(primary: remote, secondary: device)
    case .onDevice: device
    case .cloud: remote
    }
  }
}

/// Options that choose the inference mode and the cloud model.
struct RoutingOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp(
    "Inference mode: prefer-on-device, prefer-cloud, on-device, cloud.",
    discussion: "Default: prefer-on-device when a cloud is configured (--cloud-url, --api-key, $GEMINI_BASE_URL or $GEMINI_API_KEY), else on-device."))
  var mode: InferenceMode?

  @Option(name: .long, help: "Gemini API base URL, e.g. a `hybrid serve` (default: $GEMINI_BASE_URL, else Google's).")
  var cloudURL: String?

  @Option(name: .long, help: "Cloud model name (default: $HYBRIDAI_CLOUD_MODEL, else gemini-3.1-flash-lite).")
  var cloudModel: String?

  @Option(name: .long, help: "Gemini API key (default: $GEMINI_API_KEY).")
  var apiKey: String?

  func validate() throws {
    if let cloudURL {
      guard let url = URL(string: cloudURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw ValidationError("--cloud-url must be an http(s) URL, e.g. http://127.0.0.1:8080")
      }
    }
  }

  /// The mode in effect: `--mode`, or the default described in its help.
  var effectiveMode: InferenceMode {
    if let mode { return mode }
    let environment = ProcessInfo.processInfo.environment
    let cloudConfigured = cloudURL != nil || apiKey != nil
      || environment["GEMINI_BASE_URL"] != nil || environment["GEMINI_API_KEY"] != nil
    return cloudConfigured ? .preferOnDevice : .onDevice
  }

  func makeCloudModel() -> GeminiModel {
    let environment = ProcessInfo.processInfo.environment
    return GeminiModel(
      name: cloudModel ?? environment["HYBRIDAI_CLOUD_MODEL"] ?? "gemini-3.1-flash-lite",
      apiKey: apiKey ?? environment["GEMINI_API_KEY"], baseURL: cloudURL.flatMap(URL.init(string:)))
  }

  func makeModel(onDevice: SystemLanguageModel) -> any LanguageModel {
    effectiveMode.model(onDevice: onDevice, cloud: makeCloudModel())
  }
}
