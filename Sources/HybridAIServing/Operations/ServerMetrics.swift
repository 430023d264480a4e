import CoreMetrics
import Prometheus
import Synchronization

/// The metrics of one server, in Prometheus' text format at `GET /metrics`.
///
/// Products record through swift-metrics with ``factory`` (their own registry, not the process's
/// global `MetricsSystem`, so several servers in one process — tests — keep their counts apart).
/// Values that are read rather than counted (batch width, queue depth) are set by refreshers that
/// run before each scrape (``addRefresher(_:)``).
public final class ServerMetrics: Sendable {
  /// The Prometheus registry the metrics are kept in.
  public let registry: PrometheusCollectorRegistry
  /// The swift-metrics factory that records into ``registry``.
  public let factory: PrometheusMetricsFactory
  private let refreshers = Mutex<[@Sendable () async -> Void]>([])

  /// Request latencies: 5 ms to 2 min.
  static let latencyBuckets: [Duration] = [
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
    .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120),
  ]
  /// Time to first token: 1 ms to 10 s.
  static let firstTokenBuckets: [Duration] = [
    .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
  ]

  public init() {
    registry = PrometheusCollectorRegistry()
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = Self.latencyBuckets
    factory.durationHistogramBuckets[MetricName.timeToFirstToken] = Self.firstTokenBuckets
    self.factory = factory
  }

  /// Runs `refresh` before every scrape (to set gauges from what is true now).
  public func addRefresher(_ refresh: @escaping @Sendable () async -> Void) {
    refreshers.withLock { $0.append(refresh) }
  }

  /// Every metric in Prometheus' text exposition format, after the refreshers ran.
  public func exposition() async -> [UInt8] {
    for refresh in refreshers.withLock({ $0 }) { await refresh() }
    return registry.emitToBuffer()
  }

  /// A counter recorded in this server's registry.
  public func counter(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
    CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
  }

  /// A duration histogram recorded in this server's registry.
  public func timer(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
    CoreMetrics.Timer(label: name, dimensions: dimensions, factory: factory)
  }

  /// A gauge recorded in this server's registry.
  public func gauge(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
    CoreMetrics.Gauge(label: name, dimensions: dimensions, factory: factory)
  }

  /// A gauge that goes up and down (in-flight work).
  public func meter(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Meter {
    CoreMetrics.Meter(label: name, dimensions: dimensions, factory: factory)
  }
}

/// The names of the metrics `hybrid serve` records (docs/server.md lists them).
public enum MetricName {
  public static let httpRequests = "hybrid_http_requests_total"
  public static let httpRequestDuration = "hybrid_http_request_duration_seconds"
  public static let httpActiveRequests = "hybrid_http_active_requests"
  public static let generationRequests = "hybrid_generation_requests_total"
  public static let promptTokens = "hybrid_prompt_tokens_total"
  public static let outputTokens = "hybrid_output_tokens_total"
  /// Tokens drafted by speculative decoding; the acceptance rate is
  /// `rate(hybrid_accepted_draft_tokens_total) / rate(hybrid_draft_tokens_total)`.
  public static let draftTokens = "hybrid_draft_tokens_total"
  public static let acceptedDraftTokens = "hybrid_accepted_draft_tokens_total"
  public static let timeToFirstToken = "hybrid_time_to_first_token_seconds"
  public static let activeStreams = "hybrid_active_generations"
  public static let embeddingRequests = "hybrid_embedding_requests_total"
  public static let batchWidth = "hybrid_batch_sequences"
  public static let queueDepth = "hybrid_batch_queue_depth"
  public static let downloads = "hybrid_downloads_total"
  public static let downloadResumes = "hybrid_download_resumes_total"
  public static let downloadBytes = "hybrid_download_bytes_total"
  public static let apiKeyLimitsShared = "hybrid_api_key_limits_shared"
}
