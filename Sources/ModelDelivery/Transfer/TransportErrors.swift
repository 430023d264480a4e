import AsyncHTTPClient
import Foundation
import HybridAI
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
    if let reason = offlineReason(error, depth: 0) {
      return .offline(reason, detail: String(describing: error))
    }
    if let error = error as? HTTPClientError {
      if error == .readTimeout { return .transportFailure("no response within the read timeout") }
      if error == .deadlineExceeded { return .transportFailure("the request timed out") }
    }
    return .transportFailure(String(describing: error))
  }

  /// Why the service could not be reached, when `error` means it could not.
  static func offlineReason(_ error: any Error, depth: Int = 0) -> OfflineReason? {
    guard depth < 4 else { return nil }
    if let error = error as? HTTPClientError {
      switch error {
      case .connectTimeout: return .connectTimeout
      case .remoteConnectionClosed: return .connectionReset
      default: return nil
      }
    }
    if let error = error as? ChannelError {
      switch error {
      case .connectTimeout: return .connectTimeout
      case .eof, .ioOnClosedChannel, .inputClosed, .outputClosed: return .connectionReset
      case .writeHostUnreachable: return .networkUnreachable
      default: return nil
      }
    }
    if let error = error as? IOError { return reason(errno: error.errnoCode) }
    if let error = error as? SocketAddressError.UnknownHost { return .dnsFailure(host: error.host) }
    if let error = error as? SocketAddressError, case .unknown(let host, _) = error { return .dnsFailure(host: host) }
    // NIOPosix's `NIOConnectionError` (happy-eyeballs connect), read by reflection: this module
    // does not link NIOPosix. Its per-address errors, classified as above; with none, DNS errors.
    if String(describing: type(of: error)) == "NIOConnectionError" {
      var dnsFailed = false
      var host = ""
      for child in Mirror(reflecting: error).children {
        switch child.label {
        case "host": host = child.value as? String ?? ""
        case "dnsAError", "dnsAAAAError":
          if case .some(.some) = Mirror(reflecting: child.value).children.first.map({ Optional($0.value) }) { dnsFailed = true }
        case "connectionErrors":
          for failure in Mirror(reflecting: child.value).children {
            for field in Mirror(reflecting: failure.value).children where field.label == "error" {
              if let inner = field.value as? any Error, let reason = offlineReason(inner, depth: depth + 1) { return reason }
            }
          }
        default: break
        }
      }
      if dnsFailed { return .dnsFailure(host: host) }
    }
    return nil
  }

  private static func reason(errno code: CInt) -> OfflineReason? {
    switch code {
    case ECONNREFUSED: .connectionRefused
    case ECONNRESET, ECONNABORTED, EPIPE: .connectionReset
    case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL: .networkUnreachable
    case ETIMEDOUT: .connectTimeout
    default: nil
    }
  }
}
