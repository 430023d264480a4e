/// OpenAI's text input: one text, several, or token ids of the server's model (the forms of
/// `embeddings`' `input` and `completions`' `prompt`).
public enum TextsOrTokens: Sendable, Hashable, Codable {
  case text(String)
  case texts([String])
  case tokens([Int])
  case tokenLists([[Int]])

  /// The texts, or `nil` for token ids.
  public var texts: [String]? {
    switch self {
    case .text(let text): [text]
    case .texts(let texts): texts
    case .tokens, .tokenLists: nil
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let text = try? container.decode(String.self) {
      self = .text(text)
    } else if let texts = try? container.decode([String].self) {
      self = .texts(texts)
    } else if let tokens = try? container.decode([Int].self) {
      self = .tokens(tokens)
    } else if let lists = try? container.decode([[Int]].self) {
      self = .tokenLists(lists)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "must be a string, an array of strings, an array of token ids or an array of such arrays")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .text(let text): try container.encode(text)
    case .texts(let texts): try container.encode(texts)
    case .tokens(let tokens): try container.encode(tokens)
    case .tokenLists(let lists): try container.encode(lists)
    }
  }
}
