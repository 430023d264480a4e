import AsyncHTTPClient
import Foundation
import HybridAI
import NIOCore

/// Decides whether a transport error raised *before any response head arrived* means that the
/// service could not be reached (offline), and why.
///
/// | error (AsyncHTTPClient / SwiftNIO) | offline reason |
/// |---|---|
/// | `HTTPClientError.connectTimeout`, `ChannelError.connectTimeout`, `IOError` `ETIMEDOUT` | ``OfflineReason/connectTimeout`` |
/// | `IOError` `ECONNREFUSED` | ``OfflineReason/connectionRefused`` |
/// | `IOError` `ECONNRESET`, `ECONNABORTED`, `EPIPE`; `HTTPClientError.remoteConnectionClosed`; `ChannelError.eof`/`.ioOnClosedChannel`/`.inputClosed`/`.outputClosed` | ``OfflineReason/connectionReset`` |
/// | `IOError` `ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`, `EHOSTDOWN`, `EADDRNOTAVAIL`; `ChannelError.writeHostUnreachable` | ``OfflineReason/networkUnreachable`` |
/// | `SocketAddressError.UnknownHost` (getaddrinfo failed) | ``OfflineReason/dnsFailure(host:)`` |
/// | `NIOConnectionError` (happy-eyeballs connect): its connection errors, classified as above; with none, its DNS errors | as its parts |
/// | anything else (TLS errors, read timeouts, cancellation, invalid URLs, …) | `nil`: not offline |
///
/// `NIOConnectionError` lives in NIOPosix, which this module does not import; it is recognised by
/// its type name and read through `Mirror` (its `host`, `dnsAError`, `dnsAAAAError` and
/// `connectionErrors` members).
enum OfflineClassification {
  /// The offline reason of `error`, a failure before any response arrived from `host`; `nil` when
  /// the error does not mean the service was unreachable.
  static func offlineReason(for error: any Error, host: String) -> OfflineReason? {
    classify(error, host: host, depth: 0)
  }

  private static func classify(_ error: any Error, host: String, depth: Int) -> OfflineReason? {
    guard depth < 4 else { return nil }
    if error is CancellationError { return nil }
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
    if let error = error as? IOError {
      return reason(errno: error.errnoCode)
    }
    if let error = error as? SocketAddressError.UnknownHost {
      return .dnsFailure(host: error.host)
    }
    if let error = error as? SocketAddressError {
      if case .unknown(let unknownHost, _) = error { return .dnsFailure(host: unknownHost) }
      return nil
    }
    if String(describing: type(of: error)) == "NIOConnectionError" {
      return classifyConnectionError(error, host: host, depth: depth)
    }
    return nil
  }

  /// Reads a `NIOPosix.NIOConnectionError` through `Mirror`.
  private static func classifyConnectionError(_ error: any Error, host: String, depth: Int) -> OfflineReason? {
    let mirror = Mirror(reflecting: error)
    let failedHost = mirror.descendant("host") as? String ?? host
    var sawConnectionError = false
    if let failures = mirror.descendant("connectionErrors") {
      for failure in Mirror(reflecting: failures).children {
        guard let underlying = Mirror(reflecting: failure.value).descendant("error") as? any Error else { continue }
        sawConnectionError = true
        if let reason = classify(underlying, host: failedHost, depth: depth + 1) { return reason }
      }
    }
    if sawConnectionError { return nil }
    for label in ["dnsAError", "dnsAAAAError"] where unwrap(mirror.descendant(label)) != nil {
      return .dnsFailure(host: failedHost)
    }
    return nil
  }

  /// The error inside an `Optional<any Error>` read through `Mirror`.
  private static func unwrap(_ value: Any?) -> (any Error)? {
    guard let value else { return nil }
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
      return mirror.children.first.flatMap { $0.value as? any Error }
    }
    return value as? any Error
  }

  /// The offline reason of a socket `errno`, or `nil`.
  static func reason(errno code: CInt) -> OfflineReason? {
    switch code {
    case ECONNREFUSED: .connectionRefused
    case ECONNRESET, ECONNABORTED, EPIPE: .connectionReset
    case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL: .networkUnreachable
    case ETIMEDOUT: .connectTimeout
    default: nil
    }
  }
}
