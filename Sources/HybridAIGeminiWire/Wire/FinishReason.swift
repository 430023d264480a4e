extension Gemini {
  /// Why a candidate stopped (`Candidate.finishReason`), as the API spells it: `STOP`,
  /// `MAX_TOKENS`, `SAFETY`, `RECITATION`, …
  ///
  /// Values this library does not list decode and encode unchanged.
  public struct FinishReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The model ended its turn, or met a stop sequence.
    public static let stop = FinishReason(rawValue: "STOP")
    /// `maxOutputTokens` was reached.
    public static let maxTokens = FinishReason(rawValue: "MAX_TOKENS")
    /// The answer was flagged for safety.
    public static let safety = FinishReason(rawValue: "SAFETY")
    /// The answer was flagged for reciting training data.
    public static let recitation = FinishReason(rawValue: "RECITATION")
    /// The answer was in an unsupported language.
    public static let language = FinishReason(rawValue: "LANGUAGE")
    /// Any other reason.
    public static let other = FinishReason(rawValue: "OTHER")
    /// The answer contained forbidden terms.
    public static let blocklist = FinishReason(rawValue: "BLOCKLIST")
    /// The answer may contain prohibited content.
    public static let prohibitedContent = FinishReason(rawValue: "PROHIBITED_CONTENT")
    /// The answer may contain sensitive personally identifiable information.
    public static let spii = FinishReason(rawValue: "SPII")
    /// The model produced an invalid function call.
    public static let malformedFunctionCall = FinishReason(rawValue: "MALFORMED_FUNCTION_CALL")
    /// A generated image was flagged for safety.
    public static let imageSafety = FinishReason(rawValue: "IMAGE_SAFETY")
    /// The model called a tool that was not offered.
    public static let unexpectedToolCall = FinishReason(rawValue: "UNEXPECTED_TOOL_CALL")
    /// The model called too many tools.
    public static let tooManyToolCalls = FinishReason(rawValue: "TOO_MANY_TOOL_CALLS")

    /// Reasons that mean the answer was withheld or cut by a policy filter: an answer that stops
    /// for one of these is an error even when some text came before.
    public static let blockingReasons: Set<FinishReason> = [
      .safety, .recitation, .blocklist, .prohibitedContent, .spii, .imageSafety,
      FinishReason(rawValue: "IMAGE_PROHIBITED_CONTENT"), FinishReason(rawValue: "IMAGE_RECITATION"),
    ]

    /// `true` for ``stop`` and ``maxTokens``: the answer is complete or merely long.
    public var isSuccess: Bool { self == .stop || self == .maxTokens }

    public var description: String { rawValue }
  }

  /// Why a prompt was blocked (`PromptFeedback.blockReason`): `SAFETY`, `OTHER`, `BLOCKLIST`,
  /// `PROHIBITED_CONTENT`, `IMAGE_SAFETY`, …
  public struct BlockReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The prompt was flagged for safety.
    public static let safety = BlockReason(rawValue: "SAFETY")
    /// The prompt was blocked for another reason.
    public static let other = BlockReason(rawValue: "OTHER")
    /// The prompt contained forbidden terms.
    public static let blocklist = BlockReason(rawValue: "BLOCKLIST")
    /// The prompt may contain prohibited content.
    public static let prohibitedContent = BlockReason(rawValue: "PROHIBITED_CONTENT")

    public var description: String { rawValue }
  }
}
