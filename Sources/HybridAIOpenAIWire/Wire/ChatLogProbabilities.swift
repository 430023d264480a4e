/// A choice's `logprobs`: each content token's log probability and the most likely tokens at its
/// position (asked for with `logprobs: true` and `top_logprobs`).
public struct ChatLogProbabilities: Sendable, Hashable, Codable {
  public var content: [Token]?
  public var refusal: [Token]?

  public init(content: [Token]?, refusal: [Token]? = nil) {
    self.content = content
    self.refusal = refusal
  }

  /// One token of the answer.
  public struct Token: Sendable, Hashable, Codable {
    public var token: String
    public var logprob: Double
    /// The token's UTF-8 bytes (a token may hold part of a character), or `null`.
    public var bytes: [Int]?
    /// The most likely tokens at this position, most likely first (empty with `top_logprobs` 0).
    public var topLogprobs: [Alternative]

    public init(token: String, logprob: Double, bytes: [Int]?, topLogprobs: [Alternative]) {
      self.token = token
      self.logprob = logprob
      self.bytes = bytes
      self.topLogprobs = topLogprobs
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      token = try container.decodeIfPresent(String.self, forKey: .token) ?? ""
      logprob = try container.decode(Double.self, forKey: .logprob)
      bytes = try container.decodeIfPresent([Int].self, forKey: .bytes)
      topLogprobs = try container.decodeIfPresent([Alternative].self, forKey: .topLogprobs) ?? []
    }

    enum CodingKeys: String, CodingKey { case token, logprob, bytes, topLogprobs = "top_logprobs" }
  }

  /// A token that was likely at a position.
  public struct Alternative: Sendable, Hashable, Codable {
    public var token: String
    public var logprob: Double
    public var bytes: [Int]?

    public init(token: String, logprob: Double, bytes: [Int]?) {
      self.token = token
      self.logprob = logprob
      self.bytes = bytes
    }
  }
}
