import CLlama

extension LlamaSampler {
  /// How many of the most likely tokens greedy decoding checks one by one before it scores the
  /// whole vocabulary against the grammar.
  static let greedyCandidatesChecked = 32

  /// The token the sampler would choose among those `grammar` allows (after it rejected the
  /// sampler's first choice); not accepted, like ``sample(_:at:)``.
  ///
  /// Greedy: the most likely allowed token. The top candidates are checked one by one (a few
  /// microseconds each); only if none is allowed is the whole vocabulary scored. Sampling: the
  /// grammar masks the whole vocabulary and the sampler chain draws from what is left.
  func sampleAllowed(_ context: OpaquePointer, at index: Int32, by grammar: LlamaGrammar) -> llama_token {
    guard let logits = llama_get_logits_ith(context, index) else { return sample(context, at: index) }
    if isGreedy {
      for token in Self.mostLikely(Self.greedyCandidatesChecked, of: logits, count: vocabularySize)
      where grammar.allows(token) {
        return token
      }
    }
    return withCandidates(logits) { array in
      grammar.constrain(&array)
      if isGreedy {
        var best = 0
        for position in 1..<array.size where array.data[position].logit > array.data[best].logit { best = position }
        return array.data[best].id
      }
      return choose(from: &array)
    }
  }

  /// The `k` tokens with the highest logits, most likely first.
  static func mostLikely(_ k: Int, of logits: UnsafePointer<Float>, count: Int) -> [llama_token] {
    var top: [(token: llama_token, logit: Float)] = []
    top.reserveCapacity(k + 1)
    var threshold = -Float.infinity
    for index in 0..<count {
      let logit = logits[index]
      guard top.count < k || logit > threshold else { continue }
      let position = top.firstIndex { $0.logit < logit } ?? top.count
      top.insert((llama_token(index), logit), at: position)
      if top.count > k { top.removeLast() }
      threshold = top.last?.logit ?? -Float.infinity
    }
    return top.map(\.token)
  }
}
