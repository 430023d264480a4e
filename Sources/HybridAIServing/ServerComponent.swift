import Hummingbird

/// One product that `hybrid serve` can offer — the Gemini-compatible API, the model registry —
/// as routes on the shared router of a ``HybridServer``.
public protocol ServerComponent: Sendable {
  /// Adds this product's routes to `router`, for a server configured as `server`.
  ///
  /// Errors thrown from the routes reach ``GoogleErrorMiddleware``, so they should be
  /// ``GoogleAPIError``s or be mapped to them. Routes that serve API clients put
  /// ``ServerConfiguration/authentication(requiring:)`` in front of them (the server's API keys,
  /// with the scope the routes need); routes with their own authorization (signed URLs) leave it out.
  ///
  /// Routes are matched in the order they are added where patterns overlap, so a component with
  /// a more specific pattern (the registry's `/v1/models/{name}:download`) comes before one with a
  /// general pattern on the same path (the Gemini API's `/v1/models/{model}`); ``HybridServer``
  /// adds components in the order it is given them.
  func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration)
}

extension ServerConfiguration {
  /// The middleware that lets in keys with `scope` (see ``keys``).
  public func authentication(requiring scope: APIKeyScope) -> APIKeyMiddleware<BasicRequestContext> {
    APIKeyMiddleware(authority: keys, scope: scope)
  }
}
