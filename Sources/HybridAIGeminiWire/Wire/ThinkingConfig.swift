/// How much a Gemini model may think before answering, and whether it reports thought summaries.
///
/// Thinking is set either by level (Gemini 3 and later) or by a token budget (Gemini 2.5), never
/// both; the initializers make a config with both impossible, and decoding one fails.
///
/// ```swift
/// ThinkingConfig(thinkingLevel: .high)
/// ThinkingConfig(thinkingBudget: 1024, includeThoughts: true)
/// ```
public struct ThinkingConfig: Sendable, Hashable, Codable {
  /// How hard the model thinks: `MINIMAL`, `LOW`, `MEDIUM`, `HIGH` (models support a subset).
  public struct ThinkingLevel: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// As little thinking as the model allows.
    public static let minimal = ThinkingLevel(rawValue: "MINIMAL")
    /// Little thinking: faster and cheaper.
    public static let low = ThinkingLevel(rawValue: "LOW")
    /// Balanced.
    public static let medium = ThinkingLevel(rawValue: "MEDIUM")
    /// Deep thinking (the default of thinking models).
    public static let high = ThinkingLevel(rawValue: "HIGH")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
      // The API documents lower-case values in its REST samples; the enum's names are upper case.
      rawValue = try decoder.singleValueContainer().decode(String.self).uppercased()
    }
  }

  /// The thinking level, when thinking is set by level.
  public private(set) var thinkingLevel: ThinkingLevel?
  /// The thinking budget in tokens, when thinking is set by budget (`0` turns thinking off, `-1`
  /// lets the model decide).
  public private(set) var thinkingBudget: Int?
  /// Whether the answer includes thought summaries (parts with `thought: true`).
  public var includeThoughts: Bool?

  /// Thinking by level.
  public init(thinkingLevel: ThinkingLevel, includeThoughts: Bool? = nil) {
    self.thinkingLevel = thinkingLevel
    self.includeThoughts = includeThoughts
  }

  /// Thinking by token budget.
  public init(thinkingBudget: Int, includeThoughts: Bool? = nil) {
    self.thinkingBudget = thinkingBudget
    self.includeThoughts = includeThoughts
  }

  /// The model's default amount of thinking, with or without thought summaries.
  public init(includeThoughts: Bool) {
    self.includeThoughts = includeThoughts
  }

  private enum CodingKeys: String, CodingKey { case thinkingLevel, thinkingBudget, includeThoughts }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyCodingKey.self)
    thinkingLevel = try container.wire(ThinkingLevel.self, "thinkingLevel")
    thinkingBudget = try container.wire(Int.self, "thinkingBudget")
    includeThoughts = try container.wire(Bool.self, "includeThoughts")
    if thinkingLevel != nil, thinkingBudget != nil {
      throw DecodingError.dataCorrupted(DecodingError.Context(
        codingPath: decoder.codingPath,
        debugDescription: "thinkingLevel and thinkingBudget cannot both be set"))
    }
  }
}
