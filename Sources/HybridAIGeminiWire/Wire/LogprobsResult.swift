/// A candidate's `logprobsResult` (asked for with `responseLogprobs` and `logprobs`): for each
/// decoding step, the chosen token and the most likely ones.
public struct LogprobsResult: Sendable, Hashable, Codable {
  /// The chosen token of each step (it may or may not be among that step's top candidates).
  public var chosenCandidates: [Candidate]?
  /// The most likely tokens of each step, most likely first.
  public var topCandidates: [TopCandidates]?
  /// The sum of the chosen tokens' log probabilities.
  public var logProbabilitySum: Double?

  public init(chosenCandidates: [Candidate]?, topCandidates: [TopCandidates]?, logProbabilitySum: Double? = nil) {
    self.chosenCandidates = chosenCandidates
    self.topCandidates = topCandidates
    self.logProbabilitySum = logProbabilitySum
  }

  /// One token and its log probability.
  public struct Candidate: Sendable, Hashable, Codable {
    public var token: String?
    public var tokenId: Int?
    public var logProbability: Double?

    public init(token: String?, tokenId: Int?, logProbability: Double?) {
      self.token = token
      self.tokenId = tokenId
      self.logProbability = logProbability
    }
  }

  /// The most likely tokens of one step.
  public struct TopCandidates: Sendable, Hashable, Codable {
    public var candidates: [Candidate]?

    public init(candidates: [Candidate]?) { self.candidates = candidates }
  }
}
