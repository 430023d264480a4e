import AsyncHTTPClient
import Foundation
import HybridAI
import Logging

/// A model behind any OpenAI-compatible Chat Completions server — llama.cpp's `llama-server`,
/// vLLM, Ollama, LM Studio, OpenAI, or `hybrid serve` — as the cloud model of a hybrid session.
///
/// ```swift
/// let cloud = OpenAIModel(name: "smollm2", baseURL: URL(string: "http://gpu-box:8080/v1")!)
/// let session = GenerativeModelSession(model: .hybrid(primary: cloud, secondary: SystemLanguageModel.default))
/// let response = try await session.respond(to: "Why is the sky blue?")
/// print(response.rawResponse.modelVersion, response.usage)
/// ```
///
/// The base URL (API version included) comes from the initializer or `OPENAI_BASE_URL`; the key
/// from `OPENAI_API_KEY` (none is sent without one). Answers stream over `chat/completions` with
/// `stream: true` and `include_usage`. Failures are ``OpenAIError``s; only
/// ``OpenAIError/offline(_:detail:)`` (DNS failure, refused or reset connection, connect timeout,
/// unreachable network, all before any response) makes a prefer-cloud hybrid fall back to the
/// on-device model.
public struct OpenAIModel: LanguageModel {
  /// Timeouts and retries (see ``OpenAIClient/Configuration``).
  public typealias Configuration = OpenAIClient.Configuration

  /// The model's name on the server (`model` in each request).
  public let name: String
  /// The client that makes the calls.
  public let client: OpenAIClient
  /// What the served model takes and gives: text only unless told (an OpenAI-compatible server
  /// does not say). A model that reads images gets them as `image_url` parts, audio as
  /// `input_audio`, PDFs as `file` parts; routing uses it as for every model.
  public let capabilities: ModelCapabilities

  let logger: Logger

  /// A model.
  ///
  /// - Parameters:
  ///   - name: the model's name on the server.
  ///   - apiKey: the API key; by default `$OPENAI_API_KEY`. `nil` or empty sends none.
  ///   - baseURL: the API's root with its version (`http://127.0.0.1:8080/v1`); `nil` means
  ///     `$OPENAI_BASE_URL`, or else OpenAI's endpoint.
  ///   - configuration: timeouts (connect timeout: 10 s by default) and retries.
  ///   - httpClient: the `HTTPClient`; `nil` uses one shared by HybridAI's cloud clients.
  ///   - logger: where requests, retries and failures are logged.
  ///   - capabilities: what the served model takes and gives (text only by default).
  public init(name: String,
              apiKey: String? = ProcessInfo.processInfo.environment[OpenAIClient.apiKeyEnvironmentVariable],
              baseURL: URL? = nil, configuration: Configuration = Configuration(), httpClient: HTTPClient? = nil,
              logger: Logger = Logger(label: "HybridAI.openai"), capabilities: ModelCapabilities = .text) {
    self.init(name: name, client: OpenAIClient(apiKey: apiKey, baseURL: baseURL, configuration: configuration,
                                               httpClient: httpClient, logger: logger),
              capabilities: capabilities)
  }

  /// A model that uses an existing client.
  public init(name: String, client: OpenAIClient, capabilities: ModelCapabilities = .text) {
    var logger = client.logger
    logger[metadataKey: "model"] = "\(name)"
    self.name = name
    self.logger = logger
    self.client = client
    self.capabilities = capabilities
  }

  /// The model's name; reported as ``HybridAI/RawResponse/modelVersion`` when the server names none.
  public var modelIdentifier: String { name }

  /// Always ``HybridAI/ModelSource/cloud``.
  public var source: ModelSource { .cloud }

  /// Always available: whether the server can be reached shows when a request is made (an
  /// unreachable server fails with ``OpenAIError/offline(_:detail:)``). No network I/O happens here.
  public var availability: ModelAvailability { .available }

  /// Supported: every conversation HybridAI holds today (text, tools, structured output) can be
  /// sent; a text completion (``PromptRendering/plainText``) cannot.
  public func supports(_ request: GenerationRequest) async -> RequestSupport { request.conversationSupport }
}

extension OpenAIModel {
  /// Checks that the server offers the model (`GET models/{name}`, which also opens the
  /// connection). Throws ``OpenAIError`` as a request would: an unknown model, a rejected key, an
  /// unreachable server. (The Chat Completions API has no token counting and states no context
  /// size: ``HybridAI/LanguageModel/tokenCount(for:)`` and ``HybridAI/LanguageModel/contextSize``
  /// throw ``HybridAI/GenerationError/unsupportedCapability(_:)``.)
  public func prewarm(_ request: GenerationRequest) async throws {
    _ = try await client.model(id: name)
  }
}
