import Foundation

/// A request to `POST embeddings`: the texts, the model, and how the vectors come back.
public struct EmbeddingsRequest: Sendable, Hashable, Codable {
  public var model: String
  public var input: TextsOrTokens
  /// `float` (JSON numbers, the default) or `base64` (little-endian 32-bit floats, what OpenAI's
  /// Python client asks for unless told otherwise).
  public var encodingFormat: EmbeddingsEncoding?
  /// Keep only the first `dimensions` values, scaled to unit length.
  public var dimensions: Int?
  public var user: String?

  public init(model: String, input: TextsOrTokens, encodingFormat: EmbeddingsEncoding? = nil,
              dimensions: Int? = nil, user: String? = nil) {
    self.model = model
    self.input = input
    self.encodingFormat = encodingFormat
    self.dimensions = dimensions
    self.user = user
  }

  enum CodingKeys: String, CodingKey { case model, input, dimensions, user, encodingFormat = "encoding_format" }
}

/// How vectors travel in an ``EmbeddingsResponse``.
public enum EmbeddingsEncoding: String, Sendable, Hashable, Codable {
  case float
  case base64
}

/// The answer to an ``EmbeddingsRequest`` (`object: "list"`).
public struct EmbeddingsResponse: Sendable, Hashable, Codable {
  public var object: String
  public var data: [Item]
  public var model: String
  public var usage: Usage?

  public init(data: [Item], model: String, usage: Usage?) {
    self.object = "list"
    self.data = data
    self.model = model
    self.usage = usage
  }

  /// Decodes leniently, as compatible servers differ: `object`, `model` and `usage` may be missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    object = try container.decodeIfPresent(String.self, forKey: .object) ?? "list"
    data = try container.decode([Item].self, forKey: .data)
    model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
    usage = try container.decodeIfPresent(Usage.self, forKey: .usage)
  }

  enum CodingKeys: String, CodingKey { case object, data, model, usage }

  /// One text's vector (`object: "embedding"`), at its text's `index`.
  public struct Item: Sendable, Hashable, Codable {
    public var object: String
    public var index: Int
    public var embedding: EmbeddingsVector

    public init(index: Int, embedding: EmbeddingsVector) {
      self.object = "embedding"
      self.index = index
      self.embedding = embedding
    }
  }

  /// The tokens the texts took (there are no output tokens).
  public struct Usage: Sendable, Hashable, Codable {
    public var promptTokens: Int
    public var totalTokens: Int

    public init(promptTokens: Int) {
      self.promptTokens = promptTokens
      self.totalTokens = promptTokens
    }

    enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", totalTokens = "total_tokens" }
  }
}

/// A vector as JSON numbers or as base64 of its little-endian 32-bit floats.
public enum EmbeddingsVector: Sendable, Hashable, Codable {
  case floats([Float])
  case base64(String)

  /// `values` in the encoding asked for.
  public init(_ values: [Float], encoding: EmbeddingsEncoding) {
    switch encoding {
    case .float:
      self = .floats(values)
    case .base64:
      var bytes = Data(capacity: values.count * 4)
      for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
      self = .base64(bytes.base64EncodedString())
    }
  }

  /// The values, decoded from base64 when they came so; `nil` for base64 that is not whole floats.
  public var values: [Float]? {
    switch self {
    case .floats(let values):
      return values
    case .base64(let text):
      guard let bytes = Data(base64Encoded: text), bytes.count % 4 == 0 else { return nil }
      return stride(from: 0, to: bytes.count, by: 4).map { offset in
        let bits = bytes[bytes.startIndex + offset..<bytes.startIndex + offset + 4].enumerated()
          .reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        return Float(bitPattern: bits)
      }
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let text = try? container.decode(String.self) {
      self = .base64(text)
    } else {
      self = .floats(try container.decode([Float].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .floats(let values): try container.encode(values)
    case .base64(let text): try container.encode(text)
    }
  }
}
