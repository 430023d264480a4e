import AsyncHTTPClient
import Foundation
import HybridAI
import NIOCore
import NIOPosix

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
/// | `HTTPClientError.readTimeout` (connected, the request sent, nothing came back) | ``OfflineReason/noResponse`` |
/// | anything else (TLS errors, the request's deadline, cancellation, invalid URLs, …) | `nil`: not offline |
///
/// Shared by every HTTP client in HybridAI (`GeminiModel`, `ModelDownloader`), so "offline" means
/// the same thing everywhere.
public enum OfflineClassification {
  /// The offline reason of `error`, a failure before any response arrived from `host`; `nil` when
  /// the error does not mean the service was unreachable.
  public static func offlineReason(for error: any Error, host: String) -> OfflineReason? {
    classify(error, host: host, depth: 0)
  }

  private static func classify(_ error: any Error, host: String, depth: Int) -> OfflineReason? {
    guard depth < 4 else { return nil }
    if error is CancellationError { return nil }
    if let error = error as? HTTPClientError {
      switch error {
      case .connectTimeout: return .connectTimeout
      case .remoteConnectionClosed: return .connectionReset
      case .readTimeout: return .noResponse
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
    if let error = error as? NIOConnectionError {
      return classifyConnectionError(error, depth: depth)
    }
    return nil
  }

  /// A happy-eyeballs connect failure: the first classifiable per-address error; with none, a DNS failure.
  private static func classifyConnectionError(_ error: NIOConnectionError, depth: Int) -> OfflineReason? {
    if !error.connectionErrors.isEmpty {
      return error.connectionErrors.lazy.compactMap { classify($0.error, host: error.host, depth: depth + 1) }.first
    }
    if error.dnsAError != nil || error.dnsAAAAError != nil { return .dnsFailure(host: error.host) }
    return nil
  }

  /// A short account of `error` for an offline failure's detail: a socket error as the system
  /// words it (`Connection refused, errno 111`; SwiftNIO's own wording of a failed connect
  /// says "connection reset" for every errno), a happy-eyeballs failure as the address it tried
  /// and that account; anything else as it describes itself.
  public static func detail(of error: any Error) -> String {
    if let error = error as? IOError {
      return "\(String(cString: strerror(error.errnoCode))), errno \(error.errnoCode)"
    }
    if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
      return "\(first.target): \(detail(of: first.error))"
    }
    return String(describing: error)
  }

  /// The offline reason of a socket `errno`, or `nil`.
  public static func reason(errno code: CInt) -> OfflineReason? {
    switch code {
    case ECONNREFUSED: .connectionRefused
    case ECONNRESET, ECONNABORTED, EPIPE: .connectionReset
    case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL: .networkUnreachable
    case ETIMEDOUT: .connectTimeout
    default: nil
    }
  }
}
