import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIHTTP
import NIOCore

/// Classifies transport failures (AsyncHTTPClient and SwiftNIO errors) into
/// ``ModelDownloadError`` cases.
enum TransportErrors {
  /// Whether `error` is (or stands for) cancellation.
  static func isCancellation(_ error: any Error) -> Bool {
    error is CancellationError || (error as? HTTPClientError) == .cancelled
  }

  /// The error for a failure before any response arrived from `host`.
  static func beforeResponse(_ error: any Error, host: String) -> ModelDownloadError {
    if let reason = OfflineClassification.offlineReason(for: error, host: host) {
      return .offline(reason, detail: String(describing: error))
    }
    if (error as? HTTPClientError) == .deadlineExceeded { return .transportFailure("the request timed out") }
    return .transportFailure(String(describing: error))
  }
}
