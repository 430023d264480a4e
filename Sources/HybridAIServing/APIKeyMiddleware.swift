import Foundation
import HTTPTypes
import Hummingbird

/// Requires one of the configured API keys, sent as Google clients send it (the `x-goog-api-key`
/// header or the `key` query parameter) or as OpenAI clients do (`Authorization: Bearer KEY`).
/// With no keys configured every request passes. Keys are compared in constant time (every
/// configured key, every byte), so timing does not tell how much of a guess was right; with a
/// ``RequestRateLimiter`` each key's requests per minute are limited.
public struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The accepted keys; empty: every request passes.
  public let keys: Set<String>
  /// The per-key limit, if any.
  public let rateLimiter: RequestRateLimiter?
  private let keyBytes: [[UInt8]]

  /// A middleware that accepts `keys`, each within `rateLimiter`'s limit when there is one.
  public init(keys: Set<String>, rateLimiter: RequestRateLimiter? = nil) {
    self.keys = keys
    self.rateLimiter = rateLimiter
    keyBytes = keys.sorted().map { Array($0.utf8) }
  }

  /// `x-goog-api-key`.
  public static var headerName: HTTPField.Name { HTTPField.Name("x-goog-api-key")! }

  public func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    guard !keys.isEmpty else { return try await next(request, context) }
    let key = request.headers[Self.headerName] ?? request.uri.queryParameters.get("key") ?? Self.bearerToken(request)
    guard let key, !key.isEmpty else { throw GoogleAPIError.apiKeyMissing }
    guard Self.matchesAny(Array(key.utf8), keyBytes) else { throw GoogleAPIError.apiKeyInvalid }
    if let rateLimiter, let wait = rateLimiter.admit(key) {
      throw GoogleAPIError.rateLimited(
        "Quota exceeded: \(rateLimiter.requestsPerMinute) requests per minute for this API key.", retryAfter: wait)
    }
    return try await next(request, context)
  }

  /// Whether `candidate` equals one of `keys`, in time that depends only on the lengths of the
  /// configured keys (and not on where a guess first differs, or which key it matches).
  static func matchesAny(_ candidate: [UInt8], _ keys: [[UInt8]]) -> Bool {
    var found: UInt8 = 0
    for key in keys {
      var difference = UInt(bitPattern: key.count ^ candidate.count)
      for index in key.indices {
        difference |= UInt(key[index] ^ (index < candidate.count ? candidate[index] : 0))
      }
      found |= difference == 0 ? 1 : 0
    }
    return found == 1
  }

  /// The token of an `Authorization: Bearer TOKEN` header.
  static func bearerToken(_ request: Request) -> String? {
    guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
    return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
  }
}
