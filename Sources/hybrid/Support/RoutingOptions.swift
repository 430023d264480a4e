import ArgumentParser
import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIOpenAI

extension InferenceMode: ExpressibleByArgument {}

/// The API the cloud model speaks.
enum CloudAPI: String, ExpressibleByArgument, CaseIterable, Sendable {
  /// The Gemini REST API (Google, or `hybrid serve`).
  case gemini
  /// OpenAI's Chat Completions (llama-server, vLLM, Ollama, OpenAI, or `hybrid serve` under /v1beta/openai).
  case openai

  /// The environment variables of its key and base URL.
  var keyVariable: String { self == .gemini ? GeminiClient.apiKeyEnvironmentVariable : OpenAIClient.apiKeyEnvironmentVariable }
  var baseURLVariable: String {
    self == .gemini ? GeminiClient.baseURLEnvironmentVariable : OpenAIClient.baseURLEnvironmentVariable
  }
}

/// Options that choose the inference mode and the cloud model.
struct RoutingOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: ArgumentHelp(
    "Inference mode: prefer-on-device, prefer-cloud, on-device, cloud.",
    discussion: "Default: prefer-on-device when a cloud is configured (--cloud-url, --api-key, or the cloud API's base URL or key variable), else on-device."))
  var mode: InferenceMode?

  @Option(name: .long, help: ArgumentHelp(
    "The cloud's API: gemini or openai (default: $HYBRIDAI_CLOUD_API, else gemini).",
    discussion: "openai speaks Chat Completions to any OpenAI-compatible server: --cloud-url is its API root with the version, e.g. http://127.0.0.1:8080/v1 (llama-server) or http://127.0.0.1:8080/v1beta/openai (hybrid serve); the key comes from $OPENAI_API_KEY."))
  var cloudAPI: CloudAPI?

  @Option(name: .long, help: "Cloud API base URL, e.g. a `hybrid serve` (default: $GEMINI_BASE_URL or $OPENAI_BASE_URL, else Google's or OpenAI's).")
  var cloudURL: String?

  @Option(name: .long, help: ArgumentHelp(
    "Cloud model name (default: $HYBRIDAI_CLOUD_MODEL).",
    discussion: "Without one, a cloud at --cloud-url (or the base URL variable) is asked for its models and the first is used (hybrid serve's first --model); Google's Gemini uses gemini-3.1-flash-lite; openai without a URL needs a name."))
  var cloudModel: String?

  @Option(name: .long, help: "Cloud API key (default: $GEMINI_API_KEY or $OPENAI_API_KEY).")
  var apiKey: String?

  @Option(name: .long, help: ArgumentHelp(
    "Seconds the cloud may stay silent — before its answer begins, or between two pieces of it — before the request fails (default 300).",
    discussion: "A server that accepts the connection and then never answers is an error after this long (not a fallback: only an unreachable cloud falls back). Connecting has its own 10 s limit."))
  var cloudTimeout: Double?

  func validate() throws {
    if let cloudTimeout, !(cloudTimeout > 0 && cloudTimeout <= 86_400) {
      throw ValidationError("--cloud-timeout must be between 0 and 86400 seconds, got \(cloudTimeout)")
    }
    if let cloudURL {
      guard let url = URL(string: cloudURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw ValidationError("--cloud-url must be an http(s) URL, e.g. http://127.0.0.1:8080")
      }
    }
    if ProcessInfo.processInfo.environment["HYBRIDAI_CLOUD_API"].map({ CloudAPI(rawValue: $0) == nil }) == true, cloudAPI == nil {
      throw ValidationError("$HYBRIDAI_CLOUD_API must be gemini or openai")
    }
    if effectiveCloudAPI == .openai, effectiveMode != .onDevice, cloudModelName == nil, cloudBaseURL == nil {
      throw ValidationError("--cloud-api openai needs the server (--cloud-url or $OPENAI_BASE_URL) or the model's name "
        + "(--cloud-model NAME or $HYBRIDAI_CLOUD_MODEL)")
    }
  }

  /// The cloud API in effect: `--cloud-api`, `$HYBRIDAI_CLOUD_API`, else Gemini.
  var effectiveCloudAPI: CloudAPI {
    cloudAPI ?? ProcessInfo.processInfo.environment["HYBRIDAI_CLOUD_API"].flatMap(CloudAPI.init(rawValue:)) ?? .gemini
  }

  /// The mode in effect: `--mode`, or the default described in its help.
  var effectiveMode: InferenceMode {
    if let mode { return mode }
    let environment = ProcessInfo.processInfo.environment
    let api = effectiveCloudAPI
    let cloudConfigured = cloudURL != nil || apiKey != nil
      || environment[api.baseURLVariable] != nil || environment[api.keyVariable] != nil
    return cloudConfigured ? .preferOnDevice : .onDevice
  }

  /// `--cloud-model` or `$HYBRIDAI_CLOUD_MODEL`.
  private var cloudModelName: String? {
    cloudModel ?? ProcessInfo.processInfo.environment["HYBRIDAI_CLOUD_MODEL"]
  }

  /// `--cloud-url`, else the cloud API's base URL variable.
  private var cloudBaseURL: URL? {
    (cloudURL ?? ProcessInfo.processInfo.environment[effectiveCloudAPI.baseURLVariable]).flatMap(URL.init(string:))
  }

  /// The cloud model: named by `--cloud-model` / `$HYBRIDAI_CLOUD_MODEL`, else the first model the
  /// server at ``cloudBaseURL`` lists, else Gemini's default. A server that cannot be asked leaves
  /// the default name (Gemini) or an empty one (OpenAI): the request then fails or falls back as
  /// the mode says.
  func makeCloudModel() async -> any LanguageModel {
    let environment = ProcessInfo.processInfo.environment
    let api = effectiveCloudAPI
    let key = apiKey ?? environment[api.keyVariable]
    let url = cloudURL.flatMap(URL.init(string:))
    let readTimeout = cloudTimeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }
    switch api {
    case .gemini:
      var configuration = GeminiModel.Configuration()
      if let readTimeout { configuration.readTimeout = readTimeout }
      let named = { (name: String) in GeminiModel(name: name, apiKey: key, baseURL: url, configuration: configuration) }
      if let name = cloudModelName { return named(name) }
      let fallback = "gemini-3.1-flash-lite"
      guard cloudBaseURL != nil else { return named(fallback) }
      let first = try? await named(fallback).listModels(pageSize: 1).models.first?.name
      return named(first.map { $0.hasPrefix("models/") ? String($0.dropFirst(7)) : $0 } ?? fallback)
    case .openai:
      var configuration = OpenAIModel.Configuration()
      if let readTimeout { configuration.readTimeout = readTimeout }
      let named = { (name: String) in OpenAIModel(name: name, apiKey: key, baseURL: url, configuration: configuration) }
      if let name = cloudModelName { return named(name) }
      return named((try? await named("").client.listModels().data.first?.id) ?? "")
    }
  }

  /// The session's model for the mode in effect (on-device only asks no server anything).
  func makeModel(onDevice: SystemLanguageModel) async -> any LanguageModel {
    if effectiveMode == .onDevice { return onDevice }
    return effectiveMode.model(onDevice: onDevice, cloud: await makeCloudModel())
  }
}
