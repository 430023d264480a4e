import Crypto
import Foundation
import Hummingbird
import HybridAIServing

/// Guards the admin API: `Authorization: Bearer <credential>` (or `x-goog-api-key`) must carry the
/// configured admin token or an API key with the ``APIKeyScope/registryAdmin`` scope. With neither
/// an admin token nor API keys the admin API is off (`403 PERMISSION_DENIED`); a missing or wrong
/// token is `401 UNAUTHENTICATED`; a key without the scope is `403`. Compared in constant time.
struct AdminAuthorizationMiddleware<Context: RequestContext>: RouterMiddleware {
  /// SHA-256 of the configured token (comparing digests makes the comparison length-independent).
  private let tokenDigest: SHA256.Digest?
  /// The server's API keys, some of which may have the admin scope.
  private let keys: APIKeyAuthority

  init(token: String?, keys: APIKeyAuthority) {
    tokenDigest = token.map { SHA256.hash(data: Data($0.utf8)) }
    self.keys = keys
  }

  func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    let keysRequired = keys.isRequired
    guard tokenDigest != nil || keysRequired else {
      throw GoogleAPIError.permissionDenied(
        "The admin API is off: start the server with an admin token, or create a key with the registry-admin scope (hybrid keys create).")
    }
    let presented = Self.bearerToken(request.headers[.authorization]).map(String.init)
      ?? request.headers[APIKeyMiddleware<Context>.headerName]
    guard let presented else {
      throw GoogleAPIError.unauthenticated("The admin API needs an Authorization: Bearer <token> header.")
    }
    if let tokenDigest, Self.constantTimeEqual(SHA256.hash(data: Data(presented.utf8)), tokenDigest) {
      return try await next(request, context)
    }
    guard keysRequired, presented.hasPrefix(APIKeyFile.keyPrefix) else {
      context.logger.notice("admin request with a wrong token refused", metadata: ["path": "\(request.uri.path)"])
      throw GoogleAPIError.unauthenticated("The admin token is not valid.")
    }
    let key = try await keys.authenticate(presented, for: .registryAdmin)
    var context = context
    context.logger[metadataKey: "apiKey"] = "\(key?.id ?? "-")"
    return try await next(request, context)
  }

  /// The token of a `Bearer` credential (the scheme is case-insensitive).
  private static func bearerToken(_ header: String?) -> Substring? {
    guard let header else { return nil }
    let parts = header.trimmingASCIISpaces().split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingASCIISpaces()
    return token.isEmpty ? nil : token
  }

  private static func constantTimeEqual(_ lhs: SHA256.Digest, _ rhs: SHA256.Digest) -> Bool {
    zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }
}
