/// The API key a request was let in with, while that request is handled (``current``): what
/// endpoints charge the tokens of an answer to.
public struct AuthenticatedKey: Sendable {
  /// The key's id: its record's id for keys in the key file, `flag-N` for the N-th `--api-key`.
  public let id: String
  /// The key's name.
  public let name: String
  /// What it may do.
  public let scopes: Set<APIKeyScope>
  private let charging: (@Sendable (Int) async -> Void)?

  init(id: String, name: String, scopes: Set<APIKeyScope>, charging: (@Sendable (Int) async -> Void)?) {
    self.id = id
    self.name = name
    self.scopes = scopes
    self.charging = charging
  }

  /// Counts `tokens` (prompt and output) against the key's tokens-per-minute limit, if it has one.
  /// The count is made even when the caller is cancelled (a client that goes away still pays).
  public func charge(tokens: Int) async {
    guard let charging else { return }
    await Task { await charging(tokens) }.value
  }

  /// Whether ``charge(tokens:)`` counts anything (the key has a token limit).
  public var chargesTokens: Bool { charging != nil }

  /// The key of the request being handled (`nil` where the server needs no key).
  @TaskLocal public static var current: AuthenticatedKey?
}
