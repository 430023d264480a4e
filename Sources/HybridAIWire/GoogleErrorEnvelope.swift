import Foundation
import HybridAI

/// The body of every Google API error: `{"error": {"code", "message", "status", "details"}}`.
///
/// One type for every side that speaks it: the Gemini client (`GeminiModel`) and the model
/// registry's client (`ModelDownloader`, `ModelRegistryAdmin`) read it, `hybrid serve` writes it.
public struct GoogleErrorEnvelope: Sendable, Hashable, Codable, Error {
  /// The error.
  public var error: Body

  /// An envelope around `error`.
  public init(error: Body) { self.error = error }

  /// An error body from its parts.
  public init(code: Int, message: String, status: String?, details: [JSONValue]? = nil) {
    self.init(error: Body(code: code, message: message, status: status, details: details))
  }

  /// The error body of the envelope in `data`, or `nil` when `data` is not one.
  public static func body(from data: Data) -> Body? {
    try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: data).error
  }

  /// The message to show for an error answer: the envelope's message, else the start of the body.
  public static func message(from data: Data) -> String {
    if let message = body(from: data)?.message, !message.isEmpty { return message }
    return String(decoding: data.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The error inside the envelope.
  public struct Body: Sendable, Hashable, Codable {
    /// The HTTP status code, e.g. `400`.
    public var code: Int
    /// A developer-facing message.
    public var message: String
    /// The canonical status name, e.g. `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`.
    public var status: String?
    /// Typed details (`google.rpc.ErrorInfo`, `RetryInfo`, `Help`, …), as data.
    public var details: [JSONValue]?

    /// An error body from its fields.
    public init(code: Int, message: String, status: String?, details: [JSONValue]? = nil) {
      self.code = code
      self.message = message
      self.status = status
      self.details = details
    }

    /// The `reason` of the `google.rpc.ErrorInfo` detail, e.g. `API_KEY_INVALID`, `SERVICE_DISABLED`.
    public var reason: String? {
      for detail in details ?? [] where detail.typeURL?.hasSuffix("google.rpc.ErrorInfo") == true {
        if case .string(let reason) = detail["reason"] { return reason }
      }
      return nil
    }

    /// The `retryDelay` of the `google.rpc.RetryInfo` detail (e.g. `"37s"`), as a duration.
    public var retryDelay: Duration? {
      for detail in details ?? [] where detail.typeURL?.hasSuffix("google.rpc.RetryInfo") == true {
        guard case .string(let text) = detail["retryDelay"], text.hasSuffix("s"),
              let seconds = Double(text.dropLast()), seconds >= 0, seconds.isFinite else { continue }
        return .milliseconds(Int64((seconds * 1000).rounded()))
      }
      return nil
    }

    private enum CodingKeys: String, CodingKey { case code, message, status, details }

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      code = try c.decodeIfPresent(Int.self, forKey: .code) ?? 0
      message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
      status = try c.decodeIfPresent(String.self, forKey: .status)
      details = try c.decodeIfPresent([JSONValue].self, forKey: .details)
    }
  }
}

extension JSONValue {
  /// The `@type` member of a `google.protobuf.Any` detail.
  fileprivate var typeURL: String? {
    if case .string(let type) = self["@type"] { return type }
    return nil
  }
}
