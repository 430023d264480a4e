/// What an API key may do on a ``HybridServer``.
public enum APIKeyScope: String, Codable, Sendable, CaseIterable, Comparable {
  /// Generate: the Gemini and OpenAI APIs, the web chat.
  case generate
  /// Read the model registry as a device does: download info and blobs.
  case registryRead = "registry-read"
  /// Change the model registry: the admin API under `/v1/admin/`.
  case registryAdmin = "registry-admin"

  /// What keys given on the command line (`--api-key`) may do: what clients need, not the admin API.
  public static let clientScopes: Set<APIKeyScope> = [.generate, .registryRead]

  public static func < (lhs: APIKeyScope, rhs: APIKeyScope) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}
