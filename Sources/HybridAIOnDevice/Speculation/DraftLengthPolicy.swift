/// How long a sequence's next draft may be, following how its drafts fared: a draft taken whole
/// doubles the length (up to the maximum), a draft cut short shrinks it to a little more than was
/// taken, and a draft that did not pay for its check (no more of it kept than its tokens cost,
/// ``SpeculativeDecoding/draftTokenCost``) switches speculation off for a while — longer each time
/// in a row — so a sequence whose text does not repeat, or repeats too loosely, pays for few checks.
struct DraftLengthPolicy {
  /// The length a sequence starts with, and comes back to after a pause.
  static let initialLength = 4
  /// Drafts that did not pay for their check, in a row, after which drafting pauses.
  static let failuresBeforePause = 1
  /// Tokens generated without drafting in the first pause; each further pause in a row is twice as long.
  static let firstPause = 8

  let maximum: Int
  /// What checking a drafted token costs, as a share of a step.
  let draftTokenCost: Double
  private(set) var length: Int
  private var failuresInARow = 0
  private var pausesInARow = 0
  /// Tokens still to generate before the next draft.
  private var pausedFor = 0

  init(maximum: Int, draftTokenCost: Double = SpeculativeDecoding.cpuDraftTokenCost) {
    self.maximum = maximum
    self.draftTokenCost = draftTokenCost
    length = min(maximum, Self.initialLength)
  }

  /// The longest draft wanted now (0: none), and counts a token generated without one.
  mutating func nextLength() -> Int {
    guard pausedFor == 0 else {
      pausedFor -= 1
      return 0
    }
    return length
  }

  /// Takes the outcome of a draft of `drafted` tokens of which the first `accepted` were taken.
  mutating func record(drafted: Int, accepted: Int) {
    guard drafted > 0 else { return }
    if accepted == drafted {
      length = min(maximum, max(length, drafted) * 2)
      failuresInARow = 0
      pausesInARow = 0
    } else if Double(accepted) > draftTokenCost * Double(drafted) {
      length = max(2, min(maximum, accepted + 2))
      failuresInARow = 0
    } else {
      length = max(2, length / 2)
      failuresInARow += 1
      if failuresInARow >= Self.failuresBeforePause {
        pausedFor = Self.firstPause << min(pausesInARow, 6)
        pausesInARow += 1
        failuresInARow = 0
        length = min(maximum, Self.initialLength)
      }
    }
  }
}
