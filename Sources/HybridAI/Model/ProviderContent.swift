/// A cloud model's answer in its own wire form, kept so that it can be sent back unchanged when
/// the conversation continues on the same kind of model (Gemini's thoughts and thought signatures
/// must be returned as they came), plus the response metadata the core does not interpret
/// (safety ratings, citations, grounding), kept as data.
public struct ProviderContent: Sendable, Hashable, Codable {
  /// The wire format, e.g. `gemini`.
  public var provider: String
  /// The answer as the provider sent it (for Gemini: the candidate's `Content`).
  public var content: JSONValue
  /// Metadata of the answer, as the provider sent it.
  public var metadata: JSONValue?

  public init(provider: String, content: JSONValue, metadata: JSONValue? = nil) {
    self.provider = provider
    self.content = content
    self.metadata = metadata
  }
}
