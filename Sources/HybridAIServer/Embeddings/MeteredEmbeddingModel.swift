import HybridAI
import HybridAIServing

/// A served embedder that records its requests in the server's metrics: requests by outcome and
/// the texts' tokens (among the prompt tokens), labelled with the served name.
struct MeteredEmbeddingModel: EmbeddingModel {
  let base: any EmbeddingModel
  let name: String
  let metrics: ServerMetrics

  var modelIdentifier: String { base.modelIdentifier }
  var source: ModelSource { base.source }
  var availability: ModelAvailability { base.availability }

  func embeddings(for request: EmbeddingRequest) async throws -> EmbeddingResponse {
    var outcome = "error"
    defer { metrics.counter(MetricName.embeddingRequests, [("model", name), ("outcome", outcome)]).increment() }
    do {
      let response = try await base.embeddings(for: request)
      outcome = "completed"
      metrics.counter(MetricName.promptTokens, [("model", name)]).increment(by: Int64(response.promptTokens ?? 0))
      return response
    } catch is CancellationError {
      outcome = "cancelled"
      throw CancellationError()
    }
  }
}
