import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import Logging

/// The Gemini REST API, call by call: `generateContent`, `streamGenerateContent` (server-sent
/// events), `countTokens`, `models` and `models/{model}`.
///
/// It talks to Google (`https://generativelanguage.googleapis.com`) or to any server that speaks
/// the same API (such as `hybrid serve`), over AsyncHTTPClient.
///
/// ```swift
/// let client = GeminiClient()                                  // GEMINI_API_KEY, GEMINI_BASE_URL
/// let response = try await client.generateContent(
///   model: "gemini-2.5-flash", GenerateContentRequest(contents: [.user("Hello")]))
/// print(response.text)
/// ```
///
/// Failures are ``GeminiError``s. Responses with status 429, 500, 503 or 504 are retried as the
/// ``RetryPolicy`` says; a blocked prompt or an answer stopped by a filter is an error, with the
/// response attached.
public struct GeminiClient: Sendable {
  /// The environment variable the API key is read from: `GEMINI_API_KEY`.
  public static let apiKeyEnvironmentVariable = "GEMINI_API_KEY"
  /// The environment variable the base URL is read from: `GEMINI_BASE_URL`.
  public static let baseURLEnvironmentVariable = "GEMINI_BASE_URL"
  /// Google's endpoint.
  public static let defaultBaseURL = URL(string: "https://generativelanguage.googleapis.com")!

  /// The API key sent as `x-goog-api-key`, or `nil` to send none (a server that needs no key).
  public let apiKey: String?
  /// The server, without the API version (e.g. `http://127.0.0.1:8080`).
  public let baseURL: URL
  /// Timeouts, API version and retries.
  public let configuration: Configuration

  let httpClient: HTTPClient
  let logger: Logger

  /// A client.
  ///
  /// - Parameters:
  ///   - apiKey: the API key; by default `$GEMINI_API_KEY`. `nil` or empty sends no key.
  ///   - baseURL: the server; `nil` means `$GEMINI_BASE_URL`, or else ``defaultBaseURL``.
  ///   - configuration: timeouts, API version and retries.
  ///   - httpClient: the `HTTPClient` to use; `nil` uses one managed by this module with the
  ///     configuration's timeouts, which fails at once when a connection cannot be made (so an
  ///     offline cloud is noticed immediately). A client you pass in keeps its own timeouts.
  ///   - logger: where requests, retries and failures are logged.
  public init(apiKey: String? = ProcessInfo.processInfo.environment[GeminiClient.apiKeyEnvironmentVariable],
              baseURL: URL? = nil, configuration: Configuration = Configuration(), httpClient: HTTPClient? = nil,
              logger: Logger = Logger(label: "HybridAI.gemini")) {
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

  /// `POST models/{model}:generateContent`: the whole answer at once.
  ///
  /// - Parameter model: the model's name, with or without `models/` (e.g. `gemini-2.5-flash`).
  /// - Throws: ``GeminiError``; a blocked prompt or a filtered answer throws with the response.
  public func generateContent(model: String, _ request: GenerateContentRequest) async throws
    -> GenerateContentResponse {
    let body = try encode(request)
    let response = try await send(.POST, Endpoint.model(model, method: "generateContent"), body: body,
                                  operation: "generateContent")
    let decoded = try decode(GenerateContentResponse.self, from: try await collectBody(response))
    if let failure = decoded.validationFailure(complete: true) { throw failure }
    return decoded
  }

  /// `POST models/{model}:countTokens`.
  public func countTokens(model: String, _ request: CountTokensRequest) async throws -> CountTokensResponse {
    let body = try encode(request)
    let response = try await send(.POST, Endpoint.model(model, method: "countTokens"), body: body,
                                  operation: "countTokens")
    return try decode(CountTokensResponse.self, from: try await collectBody(response))
  }

  /// `POST models/{model}:batchEmbedContents`: one vector per request, in order.
  public func batchEmbedContents(model: String, _ request: BatchEmbedContentsRequest) async throws -> BatchEmbedContentsResponse {
    let response = try await send(.POST, Endpoint.model(model, method: "batchEmbedContents"), body: try encode(request),
                                  operation: "batchEmbedContents")
    return try decode(BatchEmbedContentsResponse.self, from: try await collectBody(response))
  }

  /// `GET models`: one page of the models the key may use.
  public func listModels(pageSize: Int? = nil, pageToken: String? = nil) async throws -> ListModelsResponse {
    var query: [(String, String)] = []
    if let pageSize { query.append(("pageSize", String(pageSize))) }
    if let pageToken { query.append(("pageToken", pageToken)) }
    let response = try await send(.GET, Endpoint(path: "models", query: query), body: nil, operation: "listModels")
    return try decode(ListModelsResponse.self, from: try await collectBody(response))
  }

  /// `GET models/{model}`: one model's description.
  public func model(named name: String) async throws -> Gemini.ModelInfo {
    let response = try await send(.GET, Endpoint.model(name), body: nil, operation: "getModel")
    return try decode(Gemini.ModelInfo.self, from: try await collectBody(response))
  }

  // MARK: - Coding

  func encode(_ value: some Encodable) throws -> Data {
    do {
      return try Gemini.JSON.encode(value)
    } catch {
      throw GeminiError.invalidRequest("the request could not be encoded: \(error)")
    }
  }

  func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
    do {
      return try Gemini.JSON.decode(type, from: data)
    } catch {
      let start = String(decoding: data.prefix(200), as: UTF8.self)
      logger.debug("undecodable Gemini response", metadata: ["type": "\(type)", "error": "\(error)"])
      throw GeminiError.invalidResponse("not a valid \(type) (\(Self.describe(decodingError: error))): \(start)")
    }
  }

  static func describe(decodingError error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
         DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
    default:
      return "\(error)"
    }
  }
}
