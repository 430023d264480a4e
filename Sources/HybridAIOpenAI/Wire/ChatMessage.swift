import HybridAI

/// One message of a conversation: `system`/`developer` instructions, a `user` turn, an
/// `assistant` turn (text and/or tool calls), or a `tool` result.
public struct ChatMessage: Sendable, Hashable, Codable {
  public var role: String
  public var content: Content?
  /// An `assistant` message's calls.
  public var toolCalls: [ChatToolCall]?
  /// A `tool` message: the call it answers.
  public var toolCallID: String?
  public var name: String?

  public init(role: String, content: Content? = nil, toolCalls: [ChatToolCall]? = nil, toolCallID: String? = nil,
              name: String? = nil) {
    self.role = role
    self.content = content
    self.toolCalls = toolCalls
    self.toolCallID = toolCallID
    self.name = name
  }

  /// A message with plain text.
  public init(role: String, text: String) { self.init(role: role, content: .text(text)) }

  enum CodingKeys: String, CodingKey {
    case role, content, name
    case toolCalls = "tool_calls", toolCallID = "tool_call_id"
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(role, forKey: .role)
    try container.encode(content, forKey: .content)   // `null` when absent, as OpenAI sends a tool-calls-only message
    try container.encodeIfPresent(toolCalls, forKey: .toolCalls)
    try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
    try container.encodeIfPresent(name, forKey: .name)
  }

  /// `content`: a string, or an array of parts.
  public enum Content: Sendable, Hashable, Codable {
    case text(String)
    case parts([Part])

    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let text = try? container.decode(String.self) {
        self = .text(text)
      } else {
        self = .parts(try container.decode([Part].self))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .text(let text): try container.encode(text)
      case .parts(let parts): try container.encode(parts)
      }
    }
  }

  /// A content part: `{"type": "text", "text": …}`, or another kind (`image_url`, `input_audio`,
  /// `file`, `refusal`) kept by its type.
  public struct Part: Sendable, Hashable, Codable {
    public var type: String
    public var text: String?

    public init(type: String, text: String? = nil) {
      self.type = type
      self.text = text
    }

    /// A text part.
    public static func text(_ text: String) -> Part { Part(type: "text", text: text) }
  }
}

/// A function call the assistant made: its id, and the function's name and arguments (JSON text).
public struct ChatToolCall: Sendable, Hashable, Codable {
  public var id: String
  public var type: String
  public var function: Function

  public init(id: String, name: String, arguments: String) {
    self.id = id
    self.type = "function"
    self.function = Function(name: name, arguments: arguments)
  }

  /// Decodes leniently: a missing `id` is empty (the reader makes one) and `type` is `function`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
    type = try container.decodeIfPresent(String.self, forKey: .type) ?? "function"
    function = try container.decode(Function.self, forKey: .function)
  }

  enum CodingKeys: String, CodingKey { case id, type, function }

  public struct Function: Sendable, Hashable, Codable {
    public var name: String
    /// The arguments as JSON text (a JSON object).
    public var arguments: String

    public init(name: String, arguments: String) {
      self.name = name
      self.arguments = arguments
    }
  }
}
