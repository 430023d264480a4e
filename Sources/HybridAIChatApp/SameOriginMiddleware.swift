import HTTPTypes
import Hummingbird
import HybridAIServing

/// Refuses state-changing requests (anything but `GET` and `HEAD`) that a browser made for another
/// site: an `Origin` whose host and port differ from the request's `Host`, or `Sec-Fetch-Site:
/// cross-site`. Requests without those headers (curl, API clients) pass: they carry no
/// browser's cookies or ambient credentials.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    if request.method != .get, request.method != .head, Self.isCrossSite(request) {
      throw GoogleAPIError(status: .forbidden, statusName: "PERMISSION_DENIED",
                           message: "Cross-site requests may not change chat sessions.", reason: nil)
    }
    return try await next(request, context)
  }

  static func isCrossSite(_ request: Request) -> Bool {
    if let site = request.headers[HTTPField.Name("sec-fetch-site")!], site == "cross-site" { return true }
    guard let origin = request.headers[HTTPField.Name("origin")!] else { return false }
    if origin == "null" { return true }
    let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
    return originHost?.lowercased() != request.head.authority?.lowercased()
  }
}
