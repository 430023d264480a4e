import CoreMetrics
import Hummingbird
import HybridAIServing

/// What the registry records of model downloads: downloads started (whole or a range), resumes
/// (a range that does not start at byte 0: a device continuing a cut download) and bytes sent.
struct DownloadMetrics: Sendable {
  let bytes: CoreMetrics.Counter
  let whole: CoreMetrics.Counter
  let ranges: CoreMetrics.Counter
  let resumes: CoreMetrics.Counter

  init(metrics: ServerMetrics) {
    bytes = metrics.counter(MetricName.downloadBytes)
    whole = metrics.counter(MetricName.downloads, [("kind", "whole")])
    ranges = metrics.counter(MetricName.downloads, [("kind", "range")])
    resumes = metrics.counter(MetricName.downloadResumes)
  }

  func started(resuming: Bool) {
    if resuming {
      ranges.increment()
      resumes.increment()
    } else {
      whole.increment()
    }
  }

  /// `body`, counting its bytes as they are sent.
  func counting(_ body: ResponseBody) -> ResponseBody {
    let bytes = self.bytes
    return body.map { buffer in
      bytes.increment(by: Int64(buffer.readableBytes))
      return buffer
    }
  }
}
