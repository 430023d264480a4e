import HTTPTypes
import Hummingbird

/// Once the server is stopping (``ServerHealth/isDraining``), new requests — but the operator's
/// `/healthz`, `/readyz` and `/metrics` — get `503 UNAVAILABLE` with `Retry-After: 1`, so a client
/// or a proxy sends them to another instance; requests already running finish.
struct DrainingMiddleware<Context: RequestContext>: RouterMiddleware {
  let health: ServerHealth
  static var operatorPaths: Set<String> { ["/healthz", "/readyz", "/metrics"] }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    if health.isDraining, !Self.operatorPaths.contains(request.uri.path) {
      var error = GoogleAPIError.unavailable("The server is stopping; send the request again (another instance will take it).")
      error.headers[.retryAfter] = "1"
      throw error
    }
    return try await next(request, context)
  }
}
