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

  /// A content part: `{"type": "text", "text": …}`, an image (`image_url`: a URL or a `data:` URL),
  /// audio (`input_audio`: base64 and its format) or a file (`file`: a `data:` URL); other kinds
  /// (`refusal`, …) kept by their type.
  public struct Part: Sendable, Hashable, Codable {
    public var type: String
    public var text: String?
    /// An `image_url` part's image.
    public var imageURL: ImageURL?
    /// An `input_audio` part's sound.
    public var inputAudio: InputAudio?
    /// A `file` part's file.
    public var file: File?

    public init(type: String, text: String? = nil, imageURL: ImageURL? = nil, inputAudio: InputAudio? = nil,
                file: File? = nil) {
      self.type = type
      self.text = text
      self.imageURL = imageURL
      self.inputAudio = inputAudio
      self.file = file
    }

    enum CodingKeys: String, CodingKey {
      case type, text, file
      case imageURL = "image_url", inputAudio = "input_audio"
    }

    /// A text part.
    public static func text(_ text: String) -> Part { Part(type: "text", text: text) }

    /// `image_url`: `{"url": …, "detail": …}`.
    public struct ImageURL: Sendable, Hashable, Codable {
      /// An `https` URL, or `data:<mime>;base64,<bytes>`.
      public var url: String
      /// `auto`, `low` or `high`.
      public var detail: String?
      public init(url: String, detail: String? = nil) { (self.url, self.detail) = (url, detail) }
    }

    /// `input_audio`: `{"data": base64, "format": "wav" | "mp3"}`.
    public struct InputAudio: Sendable, Hashable, Codable {
      public var data: String
      public var format: String
      public init(data: String, format: String) { (self.data, self.format) = (data, format) }
    }

    /// `file`: `{"file_data": "data:<mime>;base64,…", "filename": …}` or an uploaded `file_id`.
    public struct File: Sendable, Hashable, Codable {
      public var fileData: String?
      public var fileID: String?
      public var filename: String?
      public init(fileData: String? = nil, fileID: String? = nil, filename: String? = nil) {
        (self.fileData, self.fileID, self.filename) = (fileData, fileID, filename)
      }
      enum CodingKeys: String, CodingKey { case fileData = "file_data", fileID = "file_id", filename }
    }

    /// The MIME type of an image, audio or file part, as far as the part says
    /// (`image/png` from a `data:` URL, `audio/wav` from a format); `nil` for text.
    public var mimeType: String? {
      switch type {
      case "text": return nil
      case "image_url": return imageURL.flatMap { Self.dataURLMimeType($0.url) } ?? "image/*"
      case "input_audio": return inputAudio.map { "audio/" + $0.format.lowercased() } ?? "audio/*"
      case "file": return file?.fileData.flatMap(Self.dataURLMimeType) ?? "application/octet-stream"
      default: return type
      }
    }

    /// `image/png` of `data:image/png;base64,…`.
    static func dataURLMimeType(_ url: String) -> String? {
      guard url.hasPrefix("data:"), let end = url.firstIndex(where: { $0 == ";" || $0 == "," }) else { return nil }
      let type = url[url.index(url.startIndex, offsetBy: 5)..<end]
      return type.isEmpty ? nil : String(type)
    }
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
