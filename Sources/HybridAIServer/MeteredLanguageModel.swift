import CoreMetrics
import HybridAI
import HybridAIServing

/// A served model that records its answers in the server's metrics: requests by outcome, prompt
/// and output tokens, time to first token, answers in flight — labelled with the served name.
struct MeteredLanguageModel: ForwardingLanguageModel {
  let base: any LanguageModel
  let name: String
  let metrics: ServerMetrics

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let dimensions = [("model", name)]
    let active = metrics.meter(MetricName.activeStreams, dimensions)
    let metrics = self.metrics
    let name = self.name
    let events = base.generate(request)
    active.increment()
    return AsyncThrowingStream { continuation in
      let task = Task {
        // Counted once, before the client can see the answer end (a client that reads the metrics
        // right after its answer finds it counted).
        var counted = false
        func count(_ outcome: String) {
          guard !counted else { return }
          counted = true
          active.decrement()
          metrics.counter(MetricName.generationRequests, [("model", name), ("outcome", outcome)]).increment()
        }
        do {
          for try await event in events {
            if case .completed(let raw) = event {
              metrics.counter(MetricName.promptTokens, dimensions).increment(by: Int64(raw.usage.promptTokens))
              metrics.counter(MetricName.outputTokens, dimensions).increment(by: Int64(raw.usage.outputTokens))
              if raw.usage.draftTokens > 0 {
                metrics.counter(MetricName.draftTokens, dimensions).increment(by: Int64(raw.usage.draftTokens))
                metrics.counter(MetricName.acceptedDraftTokens, dimensions).increment(by: Int64(raw.usage.acceptedDraftTokens))
              }
              if let firstToken = raw.timings?.timeToFirstToken {
                metrics.timer(MetricName.timeToFirstToken, dimensions).record(firstToken)
              }
              count("completed")
            }
            continuation.yield(event)
          }
          // A stream its client closed ends here, without an error, when the model stops.
          count(Task.isCancelled ? "cancelled" : "error")
          continuation.finish()
        } catch {
          count(error is CancellationError ? "cancelled" : "error")
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

extension ServedModel {
  /// This model with its answers recorded in `metrics` (under its served name).
  public func metered(by metrics: ServerMetrics) -> ServedModel {
    ServedModel(name: name, model: MeteredLanguageModel(base: base, name: name, metrics: metrics),
                inputTokenLimit: inputTokenLimit, outputTokenLimit: outputTokenLimit,
                embedder: embedder.map { MeteredEmbeddingModel(base: $0, name: name, metrics: metrics) },
                countTokens: countTokens)
  }
}
