import CLlama
import Foundation
import HybridAI

/// Collects an answer's ``TokenLogProbability`` entries from the logits each token was chosen
/// from (``GenerationOptions/logProbabilities``), and keeps those of the text the answer holds.
///
/// The distribution is the model's own: a log-softmax of the raw logits row, before temperature,
/// penalties or a grammar. One pass finds the largest logit and the `alternatives` largest, a
/// second sums the exponentials: ~0.1 ms for SmolLM2's 49,152 logits, on the sequences that ask.
struct TokenLogProbabilityRecorder {
  /// How many of the most likely tokens each position lists.
  let alternatives: Int
  private(set) var entries: [TokenLogProbability] = []
  /// Entries handed on so far by ``takeDelivered(textBytes:)``, and their bytes.
  private var delivered = 0, deliveredBytes = 0

  /// A recorder when `options` ask for log probabilities, else `nil`.
  init?(options: GenerationOptions) {
    guard let count = options.logProbabilities else { return nil }
    alternatives = max(0, min(count, TokenLogProbability.maximumAlternatives))
  }

  /// Records `token`, chosen from `logits` (a row of `weights.vocabularySize` values).
  mutating func record(_ token: llama_token, from logits: UnsafePointer<Float>, weights: LlamaModelWeights) {
    let row = UnsafeBufferPointer(start: logits, count: weights.vocabularySize)
    let top = Self.largest(alternatives, in: row)
    // log Σ exp(l) = m + log Σ exp(l − m), m the largest finite logit: no overflow.
    let largest = top.first.map { row[$0] } ?? row.lazy.filter(\.isFinite).max() ?? 0
    var sum = 0.0
    for value in row where value.isFinite { sum += exp(Double(value - largest)) }
    let normalizer = Double(largest) + log(sum)
    func entry(_ id: Int, alternatives: [TokenLogProbability] = []) -> TokenLogProbability {
      let bytes = weights.bytes(of: llama_token(id))
      return TokenLogProbability(token: String(decoding: bytes, as: UTF8.self), bytes: bytes,
                                 logProbability: Double(row[id]) - normalizer, topAlternatives: alternatives, tokenID: id)
    }
    entries.append(entry(Int(token), alternatives: top.map { entry($0) }))
  }

  /// The entries not handed on yet whose tokens begin within the first `textBytes` bytes of text
  /// already streamed (their text has been delivered, or starts to be), to go out after it.
  mutating func takeDelivered(textBytes: Int) -> [TokenLogProbability] {
    let start = delivered
    while delivered < entries.count, deliveredBytes < textBytes {
      deliveredBytes += entries[delivered].bytes.count
      delivered += 1
    }
    return Array(entries[start..<delivered])
  }

  /// At the end: the entries not handed on yet that belong to the answer (see
  /// ``entries(metStopSequence:textBytes:)``).
  mutating func takeRest(metStopSequence: Bool, textBytes: Int) -> [TokenLogProbability] {
    guard metStopSequence else {
      defer { delivered = entries.count }
      return Array(entries[delivered...])
    }
    return takeDelivered(textBytes: textBytes)
  }

  /// The entries of the tokens whose text is in the answer: all of them, or after a stop sequence
  /// (whose text the answer leaves out) those that begin within the answer's first `textBytes`
  /// bytes.
  func entries(metStopSequence: Bool, textBytes: Int) -> [TokenLogProbability] {
    guard metStopSequence else { return entries }
    var kept: [TokenLogProbability] = [], offset = 0
    for entry in entries where offset < textBytes {
      kept.append(entry)
      offset += entry.bytes.count
    }
    return kept
  }

  /// The positions of the `count` largest finite values, largest first (the first on a tie).
  static func largest(_ count: Int, in row: UnsafeBufferPointer<Float>) -> [Int] {
    guard count > 0 else { return [] }
    var best: [(value: Float, index: Int)] = []
    best.reserveCapacity(count + 1)
    for (index, value) in row.enumerated() where value.isFinite {
      if best.count == count, value <= best[count - 1].value { continue }
      let position = best.firstIndex { value > $0.value } ?? best.count
      best.insert((value, index), at: position)
      if best.count > count { best.removeLast() }
    }
    return best.map(\.index)
  }
}
