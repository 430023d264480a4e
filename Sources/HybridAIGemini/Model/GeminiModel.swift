import AsyncHTTPClient
import Foundation
import HybridAI
import Logging

/// A Gemini model behind the Gemini REST API: the cloud model of a hybrid session.
///
/// ```swift
/// let cloud = GeminiModel(name: "gemini-3.1-flash-lite")     // key from GEMINI_API_KEY
/// let preferCloud = GenerativeModelSession(model: .hybrid(primary: cloud, secondary: SystemLanguageModel.default))
/// let response = try await preferCloud.respond(
///   to: "Why is the sky blue?",
///   options: .gemini(GenerationConfig(temperature: 0.8, thinkingConfig: ThinkingConfig(thinkingLevel: .high))))
/// print(response.rawResponse.modelVersion)                    // e.g. gemini-3.1-flash-lite
/// ```
///
/// The base URL comes from `GEMINI_BASE_URL` (or the initializer) so the same model talks to
/// Google or to a Gemini-compatible server such as `hybrid serve`; without an API key no key is
/// sent.
///
/// Answers stream over `streamGenerateContent?alt=sse`. Failures are ``GeminiError``s; only
/// ``GeminiError/offline(_:detail:)`` (DNS failure, refused or reset connection, connect timeout,
/// unreachable network, all before any response) makes a prefer-cloud hybrid fall back to the
/// on-device model.
public struct GeminiModel: LanguageModel {
  /// Timeouts, API version and retries (see ``GeminiClient/Configuration``).
  public typealias Configuration = GeminiClient.Configuration
  /// Retries after HTTP 429 and 5xx (see ``GeminiClient/RetryPolicy``).
  public typealias RetryPolicy = GeminiClient.RetryPolicy

  /// The model's name, e.g. `gemini-2.5-flash` (a `models/` prefix is accepted too).
  public let name: String
  /// The client that makes the calls.
  public let client: GeminiClient

  let logger: Logger
  let modelInfoCache = GeminiModelInfoCache()

  /// A Gemini model.
  ///
  /// - Parameters:
  ///   - name: the model, e.g. `gemini-3.1-flash-lite`.
  ///   - apiKey: the API key; by default `$GEMINI_API_KEY`. `nil` or empty sends no key.
  ///   - baseURL: the server; `nil` means `$GEMINI_BASE_URL`, or else Google's endpoint.
  ///   - configuration: timeouts (connect timeout: 10 s by default), API version, retries.
  ///   - httpClient: the `HTTPClient`; `nil` (the default) uses one managed by this module that
  ///     honours `configuration`'s timeouts and notices an unreachable server at once.
  ///   - logger: where requests, retries and failures are logged.
  public init(name: String,
              apiKey: String? = ProcessInfo.processInfo.environment[GeminiClient.apiKeyEnvironmentVariable],
              baseURL: URL? = nil, configuration: Configuration = Configuration(), httpClient: HTTPClient? = nil,
              logger: Logger = Logger(label: "HybridAI.gemini")) {
    var logger = logger
    logger[metadataKey: "model"] = "\(name)"
    self.name = name
    self.logger = logger
    self.client = GeminiClient(apiKey: apiKey, baseURL: baseURL, configuration: configuration,
                               httpClient: httpClient, logger: logger)
  }

  /// A model that uses an existing client.
  public init(name: String, client: GeminiClient) {
    var logger = client.logger
    logger[metadataKey: "model"] = "\(name)"
    self.name = name
    self.logger = logger
    self.client = client
  }

  /// The model's name without a `models/` prefix; reported as ``HybridAI/RawResponse/modelVersion``
  /// when the server does not report a version.
  public var modelIdentifier: String {
    name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name
  }

  /// Always ``HybridAI/ModelSource/cloud``.
  public var source: ModelSource { .cloud }

  /// Gemini reads text, images, audio, video and PDFs (sent inline), and can answer with images
  /// and audio (``HybridAIGemini/GenerationConfig`` `responseModalities`).
  public var capabilities: ModelCapabilities {
    ModelCapabilities(inputModalities: [.text, .image, .audio, .video, .document], outputModalities: [.text, .image, .audio])
  }

  /// Always available: whether the service can be reached shows when a request is made (an
  /// unreachable service fails with ``GeminiError/offline(_:detail:)``). No network I/O happens here.
  public var availability: ModelAvailability { .available }

  /// Supported: every conversation HybridAI can hold can be sent to Gemini (a text completion,
  /// ``PromptRendering/plainText``, cannot).
  public func supports(_ request: GenerationRequest) async -> RequestSupport { request.conversationSupport }

  // MARK: - Lower-level calls bound to this model

  /// `generateContent` for this model (see ``GeminiClient/generateContent(model:_:)``).
  public func generateContent(_ request: GenerateContentRequest) async throws -> GenerateContentResponse {
    try await client.generateContent(model: name, request)
  }

  /// `streamGenerateContent?alt=sse` for this model (see ``GeminiClient/streamGenerateContent(model:_:)``).
  public func streamGenerateContent(_ request: GenerateContentRequest)
    -> AsyncThrowingStream<GenerateContentResponse, any Error> {
    client.streamGenerateContent(model: name, request)
  }

  /// `countTokens` for this model.
  public func countTokens(_ request: CountTokensRequest) async throws -> CountTokensResponse {
    try await client.countTokens(model: name, request)
  }

  /// `GET models`: one page of the models the server offers.
  public func listModels(pageSize: Int? = nil, pageToken: String? = nil) async throws -> ListModelsResponse {
    try await client.listModels(pageSize: pageSize, pageToken: pageToken)
  }

  /// `GET models/{name}`: a model's description (by default this model's).
  public func model(named name: String? = nil) async throws -> Gemini.ModelInfo {
    try await client.model(named: name ?? self.name)
  }
}
