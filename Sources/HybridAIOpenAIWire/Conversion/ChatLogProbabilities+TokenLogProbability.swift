import HybridAI

// Log probabilities both ways: HybridAI's entries become a choice's `logprobs` (the server), and a
// server's `logprobs` become HybridAI's entries (the client).

extension ChatLogProbabilities {
  /// The wire form of an answer's entries.
  public init(_ entries: [TokenLogProbability]) {
    self.init(content: entries.map { entry in
      Token(token: entry.token, logprob: entry.logProbability, bytes: entry.bytes.map(Int.init),
            topLogprobs: entry.topAlternatives.map {
              Alternative(token: $0.token, logprob: $0.logProbability, bytes: $0.bytes.map(Int.init))
            })
    })
  }

  /// The content tokens as HybridAI's entries (bytes out of 0…255 are dropped; without bytes, the
  /// token's UTF-8).
  public var entries: [TokenLogProbability] {
    func bytes(_ values: [Int]?) -> [UInt8]? { values.map { $0.compactMap(UInt8.init(exactly:)) } }
    return (content ?? []).map { token in
      TokenLogProbability(token: token.token, bytes: bytes(token.bytes), logProbability: token.logprob,
                          topAlternatives: token.topLogprobs.map {
                            TokenLogProbability(token: $0.token, bytes: bytes($0.bytes), logProbability: $0.logprob)
                          })
    }
  }
}
