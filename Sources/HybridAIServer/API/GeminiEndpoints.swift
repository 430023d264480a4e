import Foundation
import HybridAI
import HybridAIGemini
import Hummingbird

/// The Gemini API's model endpoints: listing, describing, generating, counting tokens.
struct GeminiEndpoints: Sendable {
  let server: GeminiCompatibleServer

  static let supportedMethods = ["generateContent", "streamGenerateContent", "countTokens"]

  func listModels() throws -> Response {
    let models = server.models.values.sorted { $0.name < $1.name }.map(describe)
    return try json(ListModelsResponse(models: models))
  }

  func describeModel(_ name: String) throws -> Response {
    try json(describe(try server.servedModel(named: name, method: "get")))
  }

  /// `POST models/{model}:{method}`.
  func perform(_ modelAction: String, request: Request, context: some RequestContext) async throws -> Response {
    guard let colon = modelAction.lastIndex(of: ":") else {
      throw GoogleAPIError.methodNotFound("POST models/\(modelAction)")
    }
    let name = String(modelAction[..<colon]), method = String(modelAction[modelAction.index(after: colon)...])
    guard Self.supportedMethods.contains(method) else { throw GoogleAPIError.methodNotFound(method) }
    let model = try server.servedModel(named: name, method: method)
    var request = request
    let body = try await request.collectBody(upTo: server.configuration.maxRequestBytes)
    let generation = ContentGeneration(model: model, logger: context.logger)
    switch method {
    case "countTokens":
      return try json(try await generation.countTokens(try decode(CountTokensRequest.self, from: body)))
    case "generateContent":
      let wire = try decode(GenerateContentRequest.self, from: body)
      server.onGenerateRequest?(model.name, wire)
      return try json(try await generation.generate(wire))
    default:
      let wire = try decode(GenerateContentRequest.self, from: body)
      server.onGenerateRequest?(model.name, wire)
      return try await generation.stream(wire)
    }
  }

  // MARK: - Helpers

  private func describe(_ model: ServedModel) -> Gemini.ModelInfo {
    Gemini.ModelInfo(
      name: "models/\(model.name)", version: model.modelVersion, displayName: model.name,
      description: "\(model.model.modelIdentifier), served by hybrid serve",
      inputTokenLimit: model.inputTokenLimit, outputTokenLimit: model.outputTokenLimit,
      supportedGenerationMethods: Self.supportedMethods)
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

extension DecodingError {
  /// What went wrong and where, in one line for an API error message.
  var briefDescription: String {
    func path(_ context: Context) -> String {
      context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch self {
    case .dataCorrupted(let context): return "\(context.debugDescription) \(path(context))"
    case .keyNotFound(let key, let context): return "Missing field \(path(context)).\(key.stringValue)."
    case .typeMismatch(let type, let context): return "Expected \(type) at \(path(context))."
    case .valueNotFound(let type, let context): return "Expected \(type) at \(path(context))."
    @unknown default: return "\(self)"
    }
  }
}
