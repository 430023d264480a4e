import HybridAI

// Log probabilities both ways: HybridAI's entries become a candidate's `logprobsResult` (a
// Gemini-compatible server), and Gemini's `logprobsResult` becomes HybridAI's entries (the client).

extension LogprobsResult {
  /// The wire form of an answer's entries, with the sum of their log probabilities.
  public init(_ entries: [TokenLogProbability]) {
    func candidate(_ entry: TokenLogProbability) -> Candidate {
      Candidate(token: entry.token, tokenId: entry.tokenID, logProbability: entry.logProbability)
    }
    self.init(chosenCandidates: entries.map(candidate),
              topCandidates: entries.map { TopCandidates(candidates: $0.topAlternatives.map(candidate)) },
              logProbabilitySum: entries.reduce(0) { $0 + $1.logProbability })
  }

  /// The chosen tokens as HybridAI's entries, each with its step's top candidates (a step whose
  /// chosen token has no log probability counts as `-infinity`).
  public var entries: [TokenLogProbability] {
    func entry(_ candidate: Candidate, alternatives: [TokenLogProbability] = []) -> TokenLogProbability {
      TokenLogProbability(token: candidate.token ?? "", logProbability: candidate.logProbability ?? -.infinity,
                          topAlternatives: alternatives, tokenID: candidate.tokenId)
    }
    let top = topCandidates ?? []
    return (chosenCandidates ?? []).enumerated().map { step, chosen in
      entry(chosen, alternatives: step < top.count ? (top[step].candidates ?? []).map { entry($0) } : [])
    }
  }

  /// The mean of the chosen tokens' log probabilities (a candidate's `avgLogprobs`), or `nil`
  /// without any.
  public var averageLogProbability: Double? {
    let values = (chosenCandidates ?? []).compactMap(\.logProbability)
    return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }
}
