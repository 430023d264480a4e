/// A hybrid model's record of answering with its secondary model.
public struct Fallback: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The primary model that did not answer.
  public var from: String
  /// Why.
  public var reason: FallbackReason

  public init(from: String, reason: FallbackReason) {
    self.from = from
    self.reason = reason
  }

  public var description: String { "\(from) did not answer: \(reason)" }
}

/// Why a ``HybridModel`` did not use its primary model.
public enum FallbackReason: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The primary model is unavailable (not downloaded, disabled, device not eligible, …).
  case unavailable(ModelAvailability.UnavailableReason, detail: String?)
  /// The primary model cannot serve this request (context too long, unsupported input, …).
  case unsupported(String)
  /// The primary (cloud) model could not be reached.
  case offline(OfflineReason)

  public var description: String {
    switch self {
    case .unavailable(let reason, let detail): "unavailable: \(reason)" + (detail.map { " (\($0))" } ?? "")
    case .unsupported(let reason): "unsupported request: \(reason)"
    case .offline(let reason): "offline: \(reason)"
    }
  }
}
