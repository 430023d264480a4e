import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import Logging

/// The OpenAI Chat Completions API, call by call: `chat/completions` (whole, or streamed as
/// server-sent events), `models` and `models/{id}`.
///
/// It talks to any server that speaks the API — llama.cpp's `llama-server`, vLLM, Ollama, LM
/// Studio, OpenAI, Google's `/v1beta/openai/`, or `hybrid serve` — over AsyncHTTPClient.
///
/// ```swift
/// let client = OpenAIClient(baseURL: URL(string: "http://127.0.0.1:8080/v1")!)
/// let answer = try await client.chatCompletion(
///   ChatCompletionRequest(model: "smollm2", messages: [ChatMessage(role: "user", text: "Hello")]))
/// ```
///
/// Failures are ``OpenAIError``s. Responses with status 429, 500, 503 or 504 are retried as the
/// configuration's ``HybridAIHTTP/HTTPRetryPolicy`` says.
public struct OpenAIClient: Sendable {
  /// The environment variable the API key is read from: `OPENAI_API_KEY`.
  public static let apiKeyEnvironmentVariable = "OPENAI_API_KEY"
  /// The environment variable the base URL is read from: `OPENAI_BASE_URL`.
  public static let baseURLEnvironmentVariable = "OPENAI_BASE_URL"
  /// OpenAI's endpoint.
  public static let defaultBaseURL = URL(string: "https://api.openai.com/v1")!

  /// The API key sent as `Authorization: Bearer …`, or `nil` to send none.
  public let apiKey: String?
  /// The API's root, version included: `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`,
  /// or `http://127.0.0.1:8080/v1beta/openai` for `hybrid serve`. Paths are added below it.
  public let baseURL: URL
  /// Timeouts and retries.
  public let configuration: Configuration

  let httpClient: HTTPClient
  let logger: Logger

  /// A client.
  ///
  /// - Parameters:
  ///   - apiKey: the API key; by default `$OPENAI_API_KEY`. `nil` or empty sends none.
  ///   - baseURL: the API's root; `nil` means `$OPENAI_BASE_URL`, or else ``defaultBaseURL``.
  ///   - configuration: timeouts and retries.
  ///   - httpClient: the `HTTPClient`; `nil` uses one shared by HybridAI's cloud clients with the
  ///     configuration's timeouts, which fails at once when a connection cannot be made (so an
  ///     unreachable server is noticed immediately). A client you pass in keeps its own timeouts.
  ///   - logger: where requests, retries and failures are logged.
  public init(apiKey: String? = ProcessInfo.processInfo.environment[OpenAIClient.apiKeyEnvironmentVariable],
              baseURL: URL? = nil, configuration: Configuration = Configuration(), httpClient: HTTPClient? = nil,
              logger: Logger = Logger(label: "HybridAI.openai")) {
    self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
    var logger = logger
    self.baseURL = baseURL ?? CloudGeneration.baseURL(fromEnvironment: Self.baseURLEnvironmentVariable, logger: logger)
      ?? Self.defaultBaseURL
    logger[metadataKey: "baseURL"] = "\(self.baseURL.absoluteString)"
    self.logger = logger
    self.configuration = configuration
    self.httpClient = httpClient ?? ManagedHTTPClients.client(
      connectTimeout: configuration.connectTimeout, readTimeout: configuration.readTimeout)
  }

  // MARK: - Calls

  /// `POST chat/completions` without streaming: the whole answer at once (`stream` is sent as
  /// `false` whatever the request says).
  public func chatCompletion(_ request: ChatCompletionRequest) async throws -> ChatCompletion {
    var request = request
    request.stream = nil
    request.streamOptions = nil
    let response = try await send(.POST, path: "chat/completions", body: try encode(request),
                                   operation: "chatCompletion")
    let completion = try decode(ChatCompletion.self, from: try await collectBody(response))
    guard !completion.choices.isEmpty else { throw OpenAIError.invalidResponse("the answer has no choices") }
    return completion
  }

  /// `POST embeddings`: one vector per input text.
  public func embeddings(_ request: EmbeddingsRequest) async throws -> EmbeddingsResponse {
    let response = try await send(.POST, path: "embeddings", body: try encode(request), operation: "embeddings")
    return try decode(EmbeddingsResponse.self, from: try await collectBody(response))
  }

  /// `GET models`: the models the server offers.
  public func listModels() async throws -> ChatModelList {
    let response = try await send(.GET, path: "models", body: nil, operation: "listModels")
    return try decode(ChatModelList.self, from: try await collectBody(response))
  }

  /// `GET models/{id}`: one model.
  public func model(id: String) async throws -> ChatModelInfo {
    let escaped = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? id
    let response = try await send(.GET, path: "models/\(escaped)", body: nil, operation: "getModel")
    return try decode(ChatModelInfo.self, from: try await collectBody(response))
  }

  // MARK: - Coding

  func encode(_ value: some Encodable) throws -> Data {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      return try encoder.encode(value)
    } catch {
      throw OpenAIError.unencodableRequest("\(error)")
    }
  }

  func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
    do {
      return try JSONDecoder().decode(type, from: data)
    } catch {
      let start = String(decoding: data.prefix(200), as: UTF8.self)
      logger.debug("undecodable response", metadata: ["type": "\(type)", "error": "\(error)"])
      throw OpenAIError.invalidResponse("not a valid \(type) (\(error)): \(start)")
    }
  }
}

extension OpenAIClient {
  /// How an ``OpenAIClient`` (and an ``OpenAIModel``) talks to the server.
  public struct Configuration: Sendable, Hashable {
    /// How long connecting may take before the server counts as unreachable
    /// (``HybridAI/OfflineReason/connectTimeout``). Used when the client manages its own `HTTPClient`.
    public var connectTimeout: Duration
    /// How long the connection may stay silent while waiting for a response or the next chunk of
    /// a stream; `nil` waits forever. Used when the client manages its own `HTTPClient`.
    public var readTimeout: Duration?
    /// A limit on each whole request, response body included; `nil` for none.
    public var requestTimeout: Duration?
    /// Retries after 429 and 5xx responses.
    public var retryPolicy: HTTPRetryPolicy

    /// A configuration; every parameter has a production default.
    public init(connectTimeout: Duration = .seconds(10), readTimeout: Duration? = .seconds(300),
                requestTimeout: Duration? = nil, retryPolicy: HTTPRetryPolicy = .default) {
      self.connectTimeout = connectTimeout
      self.readTimeout = readTimeout
      self.requestTimeout = requestTimeout
      self.retryPolicy = retryPolicy
    }
  }
}
