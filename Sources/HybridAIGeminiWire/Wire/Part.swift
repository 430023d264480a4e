import HybridAI

extension Gemini {
  /// One piece of a ``Content``: text, inline bytes, a function call, … (see ``PartData``), plus
  /// the flags Gemini attaches to it.
  ///
  /// A part keeps members it does not know in ``otherFields`` and writes them back when encoded,
  /// so an answer sent back in the next turn arrives as it came.
  public struct Part: Sendable, Hashable, Codable {
    /// The part's data; `nil` for a part that only carries flags (e.g. a lone thought signature).
    public var data: PartData?
    /// `true` when this part is a thought (a thought summary), not part of the answer.
    public var thought: Bool?
    /// An opaque signature of the model's reasoning; must be sent back unchanged in later turns.
    public var thoughtSignature: String?
    /// Which section of a video the part covers.
    public var videoMetadata: JSONValue?
    /// Free-form metadata of the part.
    public var partMetadata: JSONValue?
    /// The resolution to process media at.
    public var mediaResolution: JSONValue?
    /// Members this library does not know, written back unchanged.
    public var otherFields: [String: JSONValue]

    /// A part from its data and flags.
    public init(_ data: PartData?, thought: Bool? = nil, thoughtSignature: String? = nil,
                videoMetadata: JSONValue? = nil, partMetadata: JSONValue? = nil, mediaResolution: JSONValue? = nil,
                otherFields: [String: JSONValue] = [:]) {
      self.data = data
      self.thought = thought
      self.thoughtSignature = thoughtSignature
      self.videoMetadata = videoMetadata
      self.partMetadata = partMetadata
      self.mediaResolution = mediaResolution
      self.otherFields = otherFields
    }

    /// A text part.
    public static func text(_ text: String) -> Part { Part(.text(text)) }
    /// A part with inline bytes.
    public static func inlineData(_ blob: Blob) -> Part { Part(.inlineData(blob)) }
    /// A file by URI (`fileData`).
    public static func fileData(_ file: FileData) -> Part { Part(.fileData(file)) }
    /// A function call part.
    public static func functionCall(_ call: FunctionCall) -> Part { Part(.functionCall(call)) }
    /// A function response part.
    public static func functionResponse(_ response: FunctionResponse) -> Part { Part(.functionResponse(response)) }

    /// The text, when this is a text part (thought or not).
    public var text: String? {
      if case .text(let text) = data { return text }
      return nil
    }

    /// `true` when ``thought`` is set.
    public var isThought: Bool { thought == true }

    private static let dataKeys = ["text", "inlineData", "fileData", "functionCall", "functionResponse",
                                   "executableCode", "codeExecutionResult"]
    private static let flagKeys: Set<String> = ["thought", "thoughtSignature", "videoMetadata", "partMetadata",
                                                "mediaResolution"]

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      // Requests may spell members in snake_case (`inline_data`); match them by their camelCase name.
      var keys: [String: AnyCodingKey] = [:]
      for key in container.allKeys { keys[AnyCodingKey.camelCase(key.stringValue)] = key }
      var data: PartData?
      var extra: [String: JSONValue] = [:]
      for name in Self.dataKeys {
        guard let k = keys[name] else { continue }
        guard data == nil else {
          extra[k.stringValue] = try container.decode(JSONValue.self, forKey: k)
          continue
        }
        switch name {
        case "text": data = .text(try container.decode(String.self, forKey: k))
        case "inlineData": data = .inlineData(try container.decode(Blob.self, forKey: k))
        case "fileData": data = .fileData(try container.decode(FileData.self, forKey: k))
        case "functionCall": data = .functionCall(try container.decode(FunctionCall.self, forKey: k))
        case "functionResponse": data = .functionResponse(try container.decode(FunctionResponse.self, forKey: k))
        case "executableCode": data = .executableCode(try container.decode(ExecutableCode.self, forKey: k))
        default: data = .codeExecutionResult(try container.decode(CodeExecutionResult.self, forKey: k))
        }
      }
      for (name, k) in keys where !Self.dataKeys.contains(name) && !Self.flagKeys.contains(name) {
        extra[k.stringValue] = try container.decode(JSONValue.self, forKey: k)
      }
      func flag<Value: Decodable>(_ type: Value.Type, _ name: String) throws -> Value? {
        guard let k = keys[name] else { return nil }
        return try container.decodeIfPresent(type, forKey: k)
      }
      self.init(
        data,
        thought: try flag(Bool.self, "thought"),
        thoughtSignature: try flag(String.self, "thoughtSignature"),
        videoMetadata: try flag(JSONValue.self, "videoMetadata"),
        partMetadata: try flag(JSONValue.self, "partMetadata"),
        mediaResolution: try flag(JSONValue.self, "mediaResolution"),
        otherFields: extra)
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: AnyCodingKey.self)
      for (name, value) in otherFields.sorted(by: { $0.key < $1.key }) {
        try container.encode(value, forKey: AnyCodingKey(name))
      }
      if let data {
        let k = AnyCodingKey(data.kind)
        switch data {
        case .text(let value): try container.encode(value, forKey: k)
        case .inlineData(let value): try container.encode(value, forKey: k)
        case .fileData(let value): try container.encode(value, forKey: k)
        case .functionCall(let value): try container.encode(value, forKey: k)
        case .functionResponse(let value): try container.encode(value, forKey: k)
        case .executableCode(let value): try container.encode(value, forKey: k)
        case .codeExecutionResult(let value): try container.encode(value, forKey: k)
        }
      }
      try container.encodeIfPresent(thought, forKey: AnyCodingKey("thought"))
      try container.encodeIfPresent(thoughtSignature, forKey: AnyCodingKey("thoughtSignature"))
      try container.encodeIfPresent(videoMetadata, forKey: AnyCodingKey("videoMetadata"))
      try container.encodeIfPresent(partMetadata, forKey: AnyCodingKey("partMetadata"))
      try container.encodeIfPresent(mediaResolution, forKey: AnyCodingKey("mediaResolution"))
    }
  }
}
