import Foundation
import HTTPTypes
import Hummingbird

/// Requires an API key with ``scope``, sent as Google clients send it (the `x-goog-api-key`
/// header or the `key` query parameter) or as OpenAI clients do (`Authorization: Bearer KEY`),
/// checked by ``authority`` (known, not revoked, the scope, the key's limits). Where the server
/// needs no key every request passes. While the request is handled — its streamed body included —
/// ``AuthenticatedKey/current`` is the key, so endpoints can charge the answer's tokens to it.
public struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Who may call.
  public let authority: APIKeyAuthority
  /// What the routes behind this middleware need.
  public let scope: APIKeyScope

  public init(authority: APIKeyAuthority, scope: APIKeyScope) {
    self.authority = authority
    self.scope = scope
  }

  /// `x-goog-api-key`.
  public static var headerName: HTTPField.Name { HTTPField.Name("x-goog-api-key")! }

  public func handle(_ request: Request, context: Context,
                     next: (Request, Context) async throws -> Response) async throws -> Response {
    let presented = request.headers[Self.headerName] ?? request.uri.queryParameters.get("key") ?? Self.bearerToken(request)
    guard let key = try await authority.authenticate(presented, for: scope) else { return try await next(request, context) }
    var context = context
    context.logger[metadataKey: "apiKey"] = "\(key.id)"
    var response = try await AuthenticatedKey.$current.withValue(key) { try await next(request, context) }
    guard key.chargesTokens else { return response }
    let body = response.body
    response.body = ResponseBody(contentLength: body.contentLength) { writer in
      try await AuthenticatedKey.$current.withValue(key) { try await body.write(writer) }
    }
    return response
  }

  /// The token of an `Authorization: Bearer TOKEN` header.
  public static func bearerToken(_ request: Request) -> String? {
    guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
    return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
  }
}
