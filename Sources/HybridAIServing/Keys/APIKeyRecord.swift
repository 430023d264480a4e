import Foundation

/// One API key as the server stores it: never the key itself, only its SHA-256, so a copy of the
/// key file lets nobody call the server.
public struct APIKeyRecord: Codable, Sendable, Hashable {
  /// The key's public identifier, part of the key (`hai_<id>_<secret>`); shown by `hybrid keys list`.
  public var id: String
  /// What the operator called it ("ios-app", "ci").
  public var name: String
  /// What it may do.
  public var scopes: Set<APIKeyScope>
  /// The SHA-256 of the whole key, in lowercase hex.
  public var sha256: String
  /// When it was made.
  public var created: Date
  /// When it was revoked; a revoked key is refused from the next request on.
  public var revoked: Date?
  /// Requests per minute it may send; `nil`: the server's default (`--requests-per-minute`).
  public var requestsPerMinute: Int?
  /// Prompt and output tokens per minute it may use; `nil`: the server's default (`--tokens-per-minute`).
  public var tokensPerMinute: Int?

  public init(id: String, name: String, scopes: Set<APIKeyScope>, sha256: String, created: Date,
              revoked: Date? = nil, requestsPerMinute: Int? = nil, tokensPerMinute: Int? = nil) {
    self.id = id
    self.name = name
    self.scopes = scopes
    self.sha256 = sha256
    self.created = created
    self.revoked = revoked
    self.requestsPerMinute = requestsPerMinute
    self.tokensPerMinute = tokensPerMinute
  }

  /// Whether it has been revoked.
  public var isRevoked: Bool { revoked != nil }

  private enum CodingKeys: String, CodingKey {
    case id, name, scopes, sha256, created, revoked, requestsPerMinute, tokensPerMinute
  }

  /// Scopes in a fixed order (generate, registry-read, registry-admin), so the file and `hybrid keys --json` read the same every time.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(name, forKey: .name)
    try container.encode(scopes.sorted(), forKey: .scopes)
    try container.encode(sha256, forKey: .sha256)
    try container.encode(created, forKey: .created)
    try container.encodeIfPresent(revoked, forKey: .revoked)
    try container.encodeIfPresent(requestsPerMinute, forKey: .requestsPerMinute)
    try container.encodeIfPresent(tokensPerMinute, forKey: .tokensPerMinute)
  }
}
