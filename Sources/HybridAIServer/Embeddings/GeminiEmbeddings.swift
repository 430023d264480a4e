import HybridAI
import HybridAIGeminiWire
import HybridAIServing
import Logging

/// Answers `models/{model}:embedContent` and `:batchEmbedContents` with a served model: the text
/// parts of each content, embedded; `outputDimensionality` keeps the first values (unit length).
struct GeminiEmbeddings: Sendable {
  let model: ServedModel
  let logger: Logger

  /// Requests one batch call may hold (the Gemini API's limit).
  static let maximumRequestsPerBatch = 100

  func embed(_ wire: EmbedContentRequest) async throws -> EmbedContentResponse {
    EmbedContentResponse(embedding: try await embeddings(of: [wire], describing: { _ in "" })[0])
  }

  func embed(_ wire: BatchEmbedContentsRequest) async throws -> BatchEmbedContentsResponse {
    guard !wire.requests.isEmpty else { throw GoogleAPIError.invalidArgument("requests is empty: give at least one text to embed.") }
    guard wire.requests.count <= Self.maximumRequestsPerBatch else {
      throw GoogleAPIError.invalidArgument("* BatchEmbedContentsRequest.requests: at most \(Self.maximumRequestsPerBatch) requests are allowed per batch.")
    }
    for (index, request) in wire.requests.enumerated() {
      if let named = request.model, named != "models/\(model.name)", named != model.name {
        throw GoogleAPIError.invalidArgument(
          "requests[\(index)].model is \(named), but this call is for models/\(model.name); every request must name it.")
      }
    }
    return BatchEmbedContentsResponse(embeddings: try await embeddings(of: wire.requests, describing: { "requests[\($0)]." }))
  }

  /// One vector per request, in order. `field(i)` prefixes the name of request `i`'s fields in errors.
  private func embeddings(of requests: [EmbedContentRequest], describing field: (Int) -> String) async throws -> [ContentEmbedding] {
    var texts: [String] = []
    var purpose: EmbeddingPurpose?
    for (index, request) in requests.enumerated() {
      if request.content.parts.contains(where: { $0.text == nil }) {
        throw GoogleAPIError.invalidArgument("\(field(index))content has a part that is not text; only text is embedded.")
      }
      if let dimensions = request.outputDimensionality, dimensions < 1 {
        throw GoogleAPIError.invalidArgument("\(field(index))outputDimensionality must be at least 1 (got \(dimensions)).")
      }
      if let taskType = request.taskType, taskType != "TASK_TYPE_UNSPECIFIED" {
        guard let known = EmbeddingPurpose(rawValue: taskType) else {
          throw GoogleAPIError.invalidArgument("\(field(index))taskType \(taskType) is not one of "
            + EmbeddingPurpose.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        purpose = purpose ?? known
      }
      texts.append(request.content.text)
    }
    let response = try await model.embeddings(for: EmbeddingRequest(texts: texts, purpose: purpose), logger: logger)
    return try zip(requests, response.embeddings).enumerated().map { index, pair in
      let (request, embedding) = pair
      if let dimensions = request.outputDimensionality, dimensions > embedding.dimensions {
        throw GoogleAPIError.invalidArgument(
          "\(field(index))outputDimensionality \(dimensions) is more than the model's \(embedding.dimensions).")
      }
      return ContentEmbedding(values: embedding.truncated(to: request.outputDimensionality).values)
    }
  }
}
