import Foundation
import HybridAI
import HybridAIOpenAIWire
import HybridAIServing
import Hummingbird

/// The OpenAI Chat Completions API answered by local models, under `/v1beta/openai/` (where
/// Google's Gemini API offers it): a product of ``HybridServer`` beside ``GeminiCompatibleAPI``,
/// served by the same models and batching engine, so OpenAI clients (the `openai` packages,
/// LangChain, any app that takes a base URL) can use `hybrid serve`.
///
/// ```swift
/// let models = [ServedModel(name: "smollm2", model: model, contextSize: 4096, embedder: model)]
/// let server = HybridServer(components: [GeminiCompatibleAPI(models: models), OpenAICompatibleAPI(models: models)])
/// ```
///
/// Endpoints: `POST /v1beta/openai/chat/completions` (unary, or `stream: true` as server-sent
/// events ending with `data: [DONE]`), `POST /v1beta/openai/completions` (legacy text completions:
/// the prompt continued without a chat template), `POST /v1beta/openai/embeddings`, `GET /v1beta/openai/models`
/// and `/v1beta/openai/models/{model}`.
/// Also at the base URL OpenAI clients are usually given for local servers, `/v1`:
/// `POST /v1/chat/completions`, `POST /v1/completions`, `POST /v1/embeddings`, and the models at `GET /v1/models` — a route the Gemini API shares,
/// answered for both by ``GeminiCompatibleAPI``.
/// The server's API keys are accepted as `Authorization: Bearer KEY`. Errors use OpenAI's envelope
/// (`{"error": {"message", "type", "param", "code"}}`) and status codes.
public struct OpenAICompatibleAPI: ServerComponent {
  /// The models offered, by name (the request's `model`).
  public let models: [String: ServedModel]
  /// The models in the order given, each name once: how the model list shows them (a client
  /// that names no model takes the first).
  public let listedModels: [ServedModel]
  /// When the server started (the models' `created`).
  let started = Int(Date().timeIntervalSince1970)

  /// - Parameter models: The generative models served (at least one).
  public init(models: [ServedModel]) {
    precondition(!models.isEmpty, "the OpenAI API needs at least one model")
    self.models = Dictionary(models.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.listedModels = ServedModel.listed(models)
  }

  public func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    func routes(under prefix: String) -> RouterGroup<BasicRequestContext> {
      router.group(RouterPath(prefix))
        .add(middleware: OpenAIErrorMiddleware<BasicRequestContext>(maxRequestBytes: server.maxRequestBytes))
        .add(middleware: server.authentication(requiring: .generate))
    }
    for prefix in [OpenAI.servedPathPrefix, OpenAI.conventionalPathPrefix] {
      routes(under: prefix).post("/chat/completions") { request, context in
        try await chatCompletion(request, context: context, maxRequestBytes: server.maxRequestBytes)
      }
      routes(under: prefix).post("/completions") { request, context in
        let wire = try await Self.decodeBody(CompletionRequest.self, of: request, maxRequestBytes: server.maxRequestBytes)
        let completion = TextCompletionGeneration(model: try servedModel(named: wire.model), logger: context.logger)
        return wire.stream == true ? try await completion.stream(wire) : try await completion.generate(wire)
      }
      routes(under: prefix).post("/embeddings") { request, context in
        let wire = try await Self.decodeBody(EmbeddingsRequest.self, of: request, maxRequestBytes: server.maxRequestBytes)
        return try await EmbeddingsAnswer(model: try servedModel(named: wire.model), logger: context.logger).answer(wire)
      }
    }
    // Only here: under `/v1` the Gemini API's model routes answer for both APIs (ModelListForBothAPIs).
    let served = routes(under: OpenAI.servedPathPrefix)
    served.get("/models") { _, _ in
      try OpenAIResponses.json(ChatModelList(data: listedModels.map { $0.openAIDescription(created: started) }))
    }
    served.get("/models/{model}") { _, context in
      try OpenAIResponses.json(try servedModel(named: try context.parameters.require("model")).openAIDescription(created: started))
    }
  }

  /// `POST …/chat/completions`: unary, or streamed as server-sent events with `stream: true`.
  private func chatCompletion(_ request: Request, context: BasicRequestContext, maxRequestBytes: Int) async throws -> Response {
    let wire = try await Self.decodeBody(ChatCompletionRequest.self, of: request, maxRequestBytes: maxRequestBytes)
    let completion = ChatCompletionGeneration(model: try servedModel(named: wire.model), logger: context.logger)
    return wire.stream == true ? try await completion.stream(wire) : try await completion.generate(wire)
  }

  /// The request's JSON body as `type`; a body that does not decode is OpenAI's 400.
  private static func decodeBody<Wire: Decodable>(_ type: Wire.Type, of request: Request, maxRequestBytes: Int) async throws -> Wire {
    var request = request
    let body = try await request.collectBody(limitedTo: maxRequestBytes)
    do {
      return try JSONDecoder().decode(Wire.self, from: Data(buffer: body))
    } catch let error as DecodingError {
      throw OpenAIAPIError.invalidRequest("We could not parse the JSON body of your request. \(error.briefDescription)")
    }
  }

  func servedModel(named name: String) throws -> ServedModel {
    let bare = name.hasPrefix("models/") ? String(name.dropFirst("models/".count)) : name
    guard let model = models[bare] else { throw OpenAIAPIError.modelNotFound(bare) }
    return model
  }
}
