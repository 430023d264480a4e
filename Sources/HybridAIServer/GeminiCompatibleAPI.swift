import Foundation
import HybridAI
import HybridAIGeminiWire
import HybridAIServing
import Hummingbird

/// A self-hosted, Gemini-compatible cloud: the Gemini REST API (`v1beta`) answered by local
/// models, a product of ``HybridServer``.
///
/// ```swift
/// let model = BatchedLanguageModel(modelPath: "/models/SmolLM2-135M-Instruct.Q4_1.gguf")
/// let served = ServedModel(name: "smollm2", model: model, contextSize: 4096, embedder: model)
/// let server = HybridServer(components: [GeminiCompatibleAPI(models: [served])])
/// try await server.run { port in print("listening on \(port)") }   // until SIGINT/SIGTERM
/// ```
///
/// Endpoints: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent` (server-sent
/// events with `alt=sse`, else one JSON array written as it comes), `:countTokens`, `:embedContent`
/// and `:batchEmbedContents` (for a model that embeds); `GET /v1beta/models` and `/v1beta/models/{model}` (also under `/v1`, where they
/// carry OpenAI's fields as well, for OpenAI clients whose base URL is `/v1`). All of
/// them are client routes (the server's API keys guard them). Errors use Google's envelope and
/// status names, so `GeminiModel` and Google's own clients handle them as they would Google's.
public struct GeminiCompatibleAPI: ServerComponent {
  /// The models offered, by name.
  public let models: [String: ServedModel]
  /// The models in the order given, each name once: how the model list shows them (a client
  /// that names no model takes the first).
  public let listedModels: [ServedModel]
  /// Called with each generation request as decoded, before it is answered (for logs and tests).
  public let onGenerateRequest: (@Sendable (_ model: String, _ request: GenerateContentRequest) -> Void)?
  /// When the server started (the models' `created` in OpenAI's fields under `/v1`).
  let started = Int(Date().timeIntervalSince1970)

  /// - Parameters:
  ///   - models: The generative models served (at least one).
  public init(models: [ServedModel],
              onGenerateRequest: (@Sendable (_ model: String, _ request: GenerateContentRequest) -> Void)? = nil) {
    precondition(!models.isEmpty, "the Gemini API needs at least one model")
    self.models = Dictionary(models.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.listedModels = ServedModel.listed(models)
    self.onGenerateRequest = onGenerateRequest
  }

  public func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    let routes = router.group()
      .add(middleware: server.authentication(requiring: .generate))
      .add(middleware: GenerationErrorMiddleware<BasicRequestContext>())
    // `GET /v1/models…` answers OpenAI clients too: their errors (a wrong key, an unknown model) in
    // OpenAI's envelope when they come with `Authorization: Bearer`.
    let sharedWithOpenAI = router.group()
      .add(middleware: OpenAIErrorMiddleware<BasicRequestContext>(maxRequestBytes: server.maxRequestBytes,
                                                                  onlyForBearerCredentials: true))
      .add(middleware: server.authentication(requiring: .generate))
      .add(middleware: GenerationErrorMiddleware<BasicRequestContext>())
    let endpoints = GeminiEndpoints(api: self, maxRequestBytes: server.maxRequestBytes)
    for version in ["v1beta", "v1"] {
      let readRoutes = version == "v1" ? sharedWithOpenAI : routes
      readRoutes.get("/\(version)/models") { _, _ in try endpoints.listModels(version: version) }
      readRoutes.get("/\(version)/models/{model}") { _, context in
        try endpoints.describeModel(try context.parameters.require("model"), version: version)
      }
      // `{model}` holds `name:method` here (Hummingbird matches whole path components).
      routes.post("/\(version)/models/{model}") { request, context in
        try await endpoints.perform(try context.parameters.require("model"), request: request, context: context)
      }
    }
  }

  func servedModel(named name: String, method: String) throws -> ServedModel {
    let bare = name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name
    guard let model = models[bare] else { throw GoogleAPIError.modelNotFound(bare, method: method) }
    return model
  }
}
