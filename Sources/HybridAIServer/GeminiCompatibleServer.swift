import Foundation
import HybridAI
import HybridAIGemini
import Hummingbird
import Logging
import ServiceLifecycle

/// A self-hosted, Gemini-compatible cloud: the Gemini REST API (`v1beta`) answered by local models.
///
/// ```swift
/// let model = BatchedLanguageModel(modelPath: "/models/SmolLM2-135M-Instruct.Q4_1.gguf")
/// let server = GeminiCompatibleServer(models: [ServedModel(name: "smollm2", batched: model)])
/// try await server.run { port in print("listening on \(port)") }   // until SIGINT/SIGTERM
/// ```
///
/// Endpoints: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`,
/// `:countTokens`; `GET /v1beta/models` and `/v1beta/models/{model}` (also under `/v1`). Errors use
/// Google's envelope and status names, so `GeminiModel` and Google's own clients handle them as
/// they would Google's.
///
/// With a ``ModelRegistry`` it also delivers custom models (docs/model-delivery.md):
/// `GET /v1/models/{name}:download`, `GET|HEAD /v1/blobs/{sha256}`, the admin API under
/// `/v1/admin/`, and `GET /v1/openapi.yaml`. API keys, when configured, guard the Gemini API and
/// `:download`; blob URLs carry their own signature and the admin API its own token.
public struct GeminiCompatibleServer: Sendable {
  public let configuration: ServerConfiguration
  /// The models offered, by name.
  public let models: [String: ServedModel]
  /// The custom-model registry, if this server delivers models to devices.
  public let registry: ModelRegistry?
  /// Called with each generation request as decoded, before it is answered (for logs and tests).
  public let onGenerateRequest: (@Sendable (_ model: String, _ request: GenerateContentRequest) -> Void)?

  private let logger: Logger

  /// - Parameters:
  ///   - models: The generative models served; may be empty when `registry` is given.
  ///   - registry: The custom-model registry to serve, if any.
  public init(configuration: ServerConfiguration = ServerConfiguration(), models: [ServedModel],
              registry: ModelRegistry? = nil,
              logger: Logger = Logger(label: "HybridAI.server"),
              onGenerateRequest: (@Sendable (_ model: String, _ request: GenerateContentRequest) -> Void)? = nil) {
    precondition(!models.isEmpty || registry != nil, "a server needs at least one model or a registry")
    self.configuration = configuration
    self.models = Dictionary(models.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.registry = registry
    self.onGenerateRequest = onGenerateRequest
    self.logger = logger
  }

  /// Serves until the process gets SIGINT or SIGTERM or the calling task is cancelled; either way
  /// it stops accepting connections, finishes the requests in flight and returns. `onListening`
  /// receives the bound port, which is useful with port `0`.
  public func run(onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) async throws {
    let configuration = self.configuration
    let app = Application(
      router: makeRouter(),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "hybrid-serve"),
      onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
      logger: logger)
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(
      services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    // The group runs in its own task so that cancelling ours asks for a graceful shutdown instead
    // of cancelling the server mid-request.
    let running = Task { try await group.run() }
    try await withTaskCancellationHandler {
      try await running.value
    } onCancel: {
      Task { await group.triggerGracefulShutdown() }
    }
  }

  func makeRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: GoogleErrorMiddleware(maxRequestBytes: configuration.maxRequestBytes))
    // Registry routes come before the API-key middleware (middleware applies to the routes added
    // after it): blob URLs are signed and the admin API has its own token.
    let registryEndpoints = registry.map(RegistryEndpoints.init)
    registryEndpoints?.addRoutes(to: router)
    router.add(middleware: APIKeyMiddleware(keys: configuration.apiKeys))
    let endpoints = GeminiEndpoints(server: self)
    for version in ["v1beta", "v1"] {
      router.get("/\(version)/models") { _, _ in try endpoints.listModels() }
      router.get("/\(version)/models/{model}") { request, context in
        let model = try context.parameters.require("model")
        // `{model}` also captures the registry's `name:download`.
        if version == "v1", let registryEndpoints, model.hasSuffix(RegistryEndpoints.downloadSuffix) {
          return try await registryEndpoints.download(model, request: request)
        }
        return try endpoints.describeModel(model)
      }
      // `{model}` holds `name:method` here (Hummingbird matches whole path components).
      router.post("/\(version)/models/{model}") { request, context in
        let model = try context.parameters.require("model")
        if version == "v1", registryEndpoints != nil, model.hasSuffix(RegistryEndpoints.downloadSuffix) {
          throw GoogleAPIError.methodNotAllowed(allow: "GET, HEAD")
        }
        return try await endpoints.perform(model, request: request, context: context)
      }
      if version == "v1", registryEndpoints != nil {
        // Other methods: 405 for the registry's `name:download`, as before (404) for anything else.
        for method in RegistryEndpoints.methods where ![.get, .head, .post].contains(method) {
          router.on("/v1/models/{model}", method: method) { request, context -> Response in
            guard try context.parameters.require("model").hasSuffix(RegistryEndpoints.downloadSuffix) else {
              throw HTTPError(.notFound)
            }
            throw GoogleAPIError.methodNotAllowed(allow: "GET, HEAD")
          }
        }
      }
    }
    return router
  }

  func servedModel(named name: String, method: String) throws -> ServedModel {
    let bare = name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name
    guard let model = models[bare] else { throw GoogleAPIError.modelNotFound(bare, method: method) }
    return model
  }
}
