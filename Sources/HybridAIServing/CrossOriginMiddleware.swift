import HTTPTypes
import Hummingbird

/// Cross-origin resource sharing for web apps on other origins that call the APIs from a browser
/// (`hybrid serve --cors-origin`). A request whose `Origin` is allowed gets
/// `Access-Control-Allow-Origin` (the origin itself, or `*` when every origin is allowed) on its
/// response, errors included; a preflight (`OPTIONS` with `Access-Control-Request-Method`) is
/// answered here, before API keys are checked (browsers send none with it), allowing the headers
/// it asks for. Other origins get no CORS headers, so the browser keeps the answer from them.
/// Credentials (cookies) are never allowed: the APIs take keys in headers.
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Allowed origins (`https://app.example.com`), or `*` for any.
  let allowedOrigins: [String]

  func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    guard let origin = request.headers[.origin], let allowed = allowedValue(for: origin) else {
      return try await next(request, context)
    }
    if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
      var headers = HTTPFields()
      headers[.accessControlAllowOrigin] = allowed
      headers[.accessControlAllowMethods] = "GET, HEAD, POST, PUT, PATCH, DELETE"
      headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "authorization, content-type"
      headers[.accessControlMaxAge] = "600"
      headers[.vary] = "Origin, Access-Control-Request-Headers"
      return Response(status: .noContent, headers: headers)
    }
    var response = try await next(request, context)
    response.headers[.accessControlAllowOrigin] = allowed
    response.headers[.accessControlExposeHeaders] = "Retry-After, Content-Disposition, Content-Range"
    response.headers[.vary] = "Origin"
    return response
  }

  /// The `Access-Control-Allow-Origin` value for `origin`, or `nil` when it is not allowed.
  private func allowedValue(for origin: String) -> String? {
    if allowedOrigins.contains("*") { return "*" }
    return allowedOrigins.contains(origin) ? origin : nil
  }
}
