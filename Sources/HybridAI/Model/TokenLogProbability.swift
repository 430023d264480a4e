/// One answer token with its log probability, and the tokens that were most likely at its
/// position (asked for with ``GenerationOptions/logProbabilities``; found in
/// ``RawResponse/logProbabilities``).
///
/// Log probabilities are natural logarithms, `0` for a certain token and negative otherwise:
/// `exp(logProbability)` is the token's probability. On-device they are the model's own
/// distribution at that position, before temperature, penalties and constraints shape the choice.
public struct TokenLogProbability: Sendable, Hashable, Codable {
  /// The token's text (a token that holds only part of a character shows U+FFFD; see ``bytes``).
  public var token: String
  /// The token's bytes, which may be part of a UTF-8 character.
  public var bytes: [UInt8]
  /// The natural log of the token's probability.
  public var logProbability: Double
  /// The most likely tokens at this position, most likely first (as many as were asked for; each
  /// with no alternatives of its own). The chosen token is among them when it was that likely.
  public var topAlternatives: [TokenLogProbability]
  /// The token's id in the model's vocabulary, when the model says (on-device and Gemini do).
  public var tokenID: Int?

  public init(token: String, bytes: [UInt8]? = nil, logProbability: Double, topAlternatives: [TokenLogProbability] = [],
              tokenID: Int? = nil) {
    self.token = token
    self.bytes = bytes ?? Array(token.utf8)
    self.logProbability = logProbability
    self.topAlternatives = topAlternatives
    self.tokenID = tokenID
  }

  /// The most alternatives a position may list (OpenAI's and Gemini's limit).
  public static let maximumAlternatives = 20
}

extension [TokenLogProbability] {
  /// The entries of the tokens that start within the first `byteCount` bytes of the answer they
  /// list, in order: the tokens of an answer's visible text, when the bytes after it became tool
  /// calls (whose tokens OpenAI and Gemini do not list).
  public func startingWithin(_ byteCount: Int) -> [TokenLogProbability] {
    var start = 0
    return prefix { entry in
      defer { start += entry.bytes.count }
      return start < byteCount
    }
  }
}
