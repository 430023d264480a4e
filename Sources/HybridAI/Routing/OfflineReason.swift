/// Why a cloud model could not be reached at all: the only kind of failure on which a
/// prefer-cloud hybrid falls back to the on-device model.
public enum OfflineReason: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The host name did not resolve.
  case dnsFailure(host: String)
  /// Nothing accepted the connection.
  case connectionRefused
  /// The connection was reset or closed before any response arrived.
  case connectionReset
  /// Connecting took longer than the configured timeout.
  case connectTimeout
  /// No route to the host or network.
  case networkUnreachable
  /// The connection was made and the request sent, but no response began within the read timeout
  /// (a hung server or proxy): nothing was received, so the other model may answer instead.
  case noResponse

  public var description: String {
    switch self {
    case .dnsFailure(let host): "DNS lookup failed for \(host)"
    case .connectionRefused: "connection refused"
    case .connectionReset: "connection reset before a response"
    case .connectTimeout: "connect timeout"
    case .networkUnreachable: "network unreachable"
    case .noResponse: "no response within the read timeout"
    }
  }
}

/// An error that can say whether the model was unreachable (offline).
///
/// Cloud backends conform their error types; ``HybridModel`` falls back from its primary model
/// when a failure before the first chunk has an ``offlineReason``.
public protocol ReachabilityError: Error {
  /// Why the model could not be reached, or `nil` when it was reached (and refused, failed, …).
  var offlineReason: OfflineReason? { get }
}
