import Foundation
import HTTPTypes
import Hummingbird

/// Requires one of the configured API keys, sent as Google clients send it (the `x-goog-api-key`
/// header or the `key` query parameter) or as OpenAI clients do (`Authorization: Bearer KEY`).
/// With no keys configured every request passes.
public struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The accepted keys; empty: every request passes.
  public let keys: Set<String>

  /// A middleware that accepts `keys`.
  public init(keys: Set<String>) { self.keys = keys }

  /// `x-goog-api-key`.
  public static var headerName: HTTPField.Name { HTTPField.Name("x-goog-api-key")! }

  public func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    guard !keys.isEmpty else { return try await next(request, context) }
    let key = request.headers[Self.headerName] ?? request.uri.queryParameters.get("key") ?? Self.bearerToken(request)
    guard let key, !key.isEmpty else { throw GoogleAPIError.apiKeyMissing }
    guard keys.contains(key) else { throw GoogleAPIError.apiKeyInvalid }
    return try await next(request, context)
  }

  /// The token of an `Authorization: Bearer TOKEN` header.
  static func bearerToken(_ request: Request) -> String? {
    guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
    return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
  }
}
