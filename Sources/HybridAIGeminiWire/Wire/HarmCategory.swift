extension Gemini {
  /// A category of harm that safety settings and ratings refer to (`HARM_CATEGORY_…`).
  public struct HarmCategory: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Harassment.
    public static let harassment = HarmCategory(rawValue: "HARM_CATEGORY_HARASSMENT")
    /// Hate speech.
    public static let hateSpeech = HarmCategory(rawValue: "HARM_CATEGORY_HATE_SPEECH")
    /// Sexually explicit content.
    public static let sexuallyExplicit = HarmCategory(rawValue: "HARM_CATEGORY_SEXUALLY_EXPLICIT")
    /// Dangerous content.
    public static let dangerousContent = HarmCategory(rawValue: "HARM_CATEGORY_DANGEROUS_CONTENT")
    /// Content that may harm civic integrity.
    public static let civicIntegrity = HarmCategory(rawValue: "HARM_CATEGORY_CIVIC_INTEGRITY")

    public var description: String { rawValue }
  }

  /// From which probability of harm a ``SafetySetting`` blocks (`BLOCK_…`, `OFF`).
  public struct HarmBlockThreshold: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Block when the probability is low, medium or high.
    public static let blockLowAndAbove = HarmBlockThreshold(rawValue: "BLOCK_LOW_AND_ABOVE")
    /// Block when the probability is medium or high.
    public static let blockMediumAndAbove = HarmBlockThreshold(rawValue: "BLOCK_MEDIUM_AND_ABOVE")
    /// Block only when the probability is high.
    public static let blockOnlyHigh = HarmBlockThreshold(rawValue: "BLOCK_ONLY_HIGH")
    /// Never block; still rate.
    public static let blockNone = HarmBlockThreshold(rawValue: "BLOCK_NONE")
    /// Turn the filter off.
    public static let off = HarmBlockThreshold(rawValue: "OFF")

    public var description: String { rawValue }
  }

  /// How likely a piece of content is harmful (`NEGLIGIBLE`, `LOW`, `MEDIUM`, `HIGH`).
  public struct HarmProbability: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Negligible.
    public static let negligible = HarmProbability(rawValue: "NEGLIGIBLE")
    /// Low.
    public static let low = HarmProbability(rawValue: "LOW")
    /// Medium.
    public static let medium = HarmProbability(rawValue: "MEDIUM")
    /// High.
    public static let high = HarmProbability(rawValue: "HIGH")

    public var description: String { rawValue }
  }
}
