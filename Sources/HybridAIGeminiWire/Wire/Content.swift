extension Gemini {
  /// One turn of a conversation: who said it (`role`) and its parts.
  public struct Content: Sendable, Hashable, Codable {
    /// `user` or `model`; `nil` for a system instruction (and allowed for a single user turn).
    public var role: String?
    /// The turn's parts, in order. Left out of the JSON when empty.
    public var parts: [Part]

    /// A content from its role and parts.
    public init(role: String?, parts: [Part]) {
      self.role = role
      self.parts = parts
    }

    /// The role of the user's turns.
    public static let userRole = "user"
    /// The role of the model's turns.
    public static let modelRole = "model"

    /// A user turn.
    public static func user(_ parts: Part...) -> Content { Content(role: userRole, parts: parts) }
    /// A user turn with one text part.
    public static func user(_ text: String) -> Content { Content(role: userRole, parts: [.text(text)]) }
    /// A model turn.
    public static func model(_ parts: Part...) -> Content { Content(role: modelRole, parts: parts) }
    /// A model turn with one text part.
    public static func model(_ text: String) -> Content { Content(role: modelRole, parts: [.text(text)]) }

    /// The text of the parts that are not thoughts, joined.
    public var text: String {
      parts.lazy.filter { !$0.isThought }.compactMap(\.text).joined()
    }

    /// The text of the thought parts, joined.
    public var thoughtText: String {
      parts.lazy.filter(\.isThought).compactMap(\.text).joined()
    }

    private enum CodingKeys: String, CodingKey { case role, parts }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      role = try container.decodeIfPresent(String.self, forKey: .role)
      parts = try container.decodeIfPresent([Part].self, forKey: .parts) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(role, forKey: .role)
      if !parts.isEmpty { try container.encode(parts, forKey: .parts) }
    }
  }
}
