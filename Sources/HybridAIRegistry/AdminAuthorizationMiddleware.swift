import Crypto
import Foundation
import Hummingbird
import HybridAIServing

/// Guards the admin API: `Authorization: Bearer <token>` must carry the configured token.
/// Without a configured token the admin API is off (`403 PERMISSION_DENIED`); a missing or wrong
/// token is `401 UNAUTHENTICATED`. Tokens are compared in constant time.
struct AdminAuthorizationMiddleware<Context: RequestContext>: RouterMiddleware {
  /// SHA-256 of the configured token (comparing digests makes the comparison length-independent).
  private let tokenDigest: SHA256.Digest?

  init(token: String?) {
    tokenDigest = token.map { SHA256.hash(data: Data($0.utf8)) }
  }

  func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    guard let tokenDigest else {
      throw GoogleAPIError.permissionDenied("The admin API is off: start the server with an admin token to use it.")
    }
    guard let presented = Self.bearerToken(request.headers[.authorization]) else {
      throw GoogleAPIError.unauthenticated("The admin API needs an Authorization: Bearer <token> header.")
    }
    guard Self.constantTimeEqual(SHA256.hash(data: Data(presented.utf8)), tokenDigest) else {
      context.logger.notice("admin request with a wrong token refused", metadata: ["path": "\(request.uri.path)"])
      throw GoogleAPIError.unauthenticated("The admin token is not valid.")
    }
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
