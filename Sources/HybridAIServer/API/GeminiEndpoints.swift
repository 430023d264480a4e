import Foundation
import HybridAI
import HybridAIGeminiWire
import HybridAIOpenAIWire
import HybridAIServing
import Hummingbird

/// The Gemini API's model endpoints: listing, describing, generating, counting tokens, embedding.
struct GeminiEndpoints: Sendable {
  let api: GeminiCompatibleAPI
  /// The largest request body read (``ServerConfiguration/maxRequestBytes``).
  let maxRequestBytes: Int

  static let supportedMethods = ["generateContent", "streamGenerateContent", "countTokens"]
  /// The methods of a served model that embeds too.
  static let embeddingMethods = ["embedContent", "batchEmbedContents"]

  /// `GET {version}/models`; under `v1` OpenAI's list too (``ModelListForBothAPIs``).
  func listModels(version: String) throws -> Response {
    let served = api.listedModels
    let gemini = ListModelsResponse(models: served.map(describe))
    guard version == "v1" else { return try json(gemini) }
    return try json(ModelListForBothAPIs(gemini: gemini, openAI: ChatModelList(data: served.map { $0.openAIDescription(created: api.started) })))
  }

  /// `GET {version}/models/{model}`; under `v1` OpenAI's description too (``ModelInfoForBothAPIs``).
  func describeModel(_ name: String, version: String) throws -> Response {
    let model = try api.servedModel(named: name, method: "get")
    guard version == "v1" else { return try json(describe(model)) }
    return try json(ModelInfoForBothAPIs(gemini: describe(model), openAI: model.openAIDescription(created: api.started)))
  }

  /// `POST models/{model}:{method}`.
  func perform(_ modelAction: String, request: Request, context: some RequestContext) async throws -> Response {
    guard let colon = modelAction.lastIndex(of: ":") else {
      throw GoogleAPIError.methodNotFound("POST models/\(modelAction)")
    }
    let name = String(modelAction[..<colon]), method = String(modelAction[modelAction.index(after: colon)...])
    guard Self.supportedMethods.contains(method) || Self.embeddingMethods.contains(method) else {
      throw GoogleAPIError.methodNotFound(method)
    }
    let model = try api.servedModel(named: name, method: method)
    var request = request
    let body = try await request.collectBody(limitedTo: maxRequestBytes)
    let generation = ContentGeneration(model: model, logger: context.logger)
    switch method {
    case "embedContent":
      return try json(try await GeminiEmbeddings(model: model, logger: context.logger).embed(try decode(EmbedContentRequest.self, from: body)))
    case "batchEmbedContents":
      return try json(try await GeminiEmbeddings(model: model, logger: context.logger)
        .embed(try decode(BatchEmbedContentsRequest.self, from: body)))
    case "countTokens":
      return try json(try await generation.countTokens(try decode(CountTokensRequest.self, from: body)))
    case "generateContent":
      let wire = try decode(GenerateContentRequest.self, from: body)
      api.onGenerateRequest?(model.name, wire)
      return try json(try await generation.generate(wire))
    default:
      let wire = try decode(GenerateContentRequest.self, from: body)
      api.onGenerateRequest?(model.name, wire)
      // Google streams server-sent events with `alt=sse`, else one JSON array written piece by piece.
      let framing: GeminiStreamFraming = request.uri.queryParameters.get("alt") == "sse" ? .serverSentEvents : .jsonArray
      return try await generation.stream(wire, framing: framing)
    }
  }

  // MARK: - Helpers

  private func describe(_ model: ServedModel) -> Gemini.ModelInfo {
    Gemini.ModelInfo(
      name: "models/\(model.name)", version: model.modelVersion, displayName: model.name,
      description: model.name == model.modelVersion ? "\(model.model.modelIdentifier), served by hybrid serve"
        : "an alias of \(model.modelVersion) (\(model.model.modelIdentifier)), served by hybrid serve",
      inputTokenLimit: model.inputTokenLimit, outputTokenLimit: model.outputTokenLimit,
      supportedGenerationMethods: Self.supportedMethods + (model.embedder == nil ? [] : Self.embeddingMethods),
      inputModalities: Gemini.modalityNames(model.model.capabilities.inputModalities),
      outputModalities: Gemini.modalityNames(model.model.capabilities.outputModalities))
  }

  private func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws -> T {
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch let error as DecodingError {
      throw GoogleAPIError.invalidArgument("Invalid JSON payload received. \(error.briefDescription)")
    }
  }

  private func json(_ value: some Encodable) throws -> Response {
    Response(status: .ok, headers: [.contentType: "application/json; charset=UTF-8"],
             body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.api.encode(value))))
  }
}
