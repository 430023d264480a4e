import CLlama
import Foundation
import HybridAI

/// Collects an answer's ``TokenLogProbability`` entries from the logits each token was chosen
/// from (``GenerationOptions/logProbabilities``), and keeps those of the text the answer holds.
///
/// The distribution is the model's own: a log-softmax of the raw logits row, before temperature,
/// penalties or a grammar. One pass finds the `alternatives` largest logits (or the largest), a
/// second sums the exponentials; only on the sequences that ask. Entries go out as the text they
/// belong to does (``takeDelivered(textBytes:)``), and whole with the completion.
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
    let count = weights.vocabularySize
    let top = Self.largest(alternatives, in: logits, count: count)
    let largest = top.first.map { logits[$0] } ?? logits[LargestLogit.index(in: UnsafeBufferPointer(start: logits, count: count))]
    let normalizer = Double(largest) + log(Self.sumOfExponentials(logits, count: count, minus: largest))
    func entry(_ id: Int, alternatives: [TokenLogProbability] = []) -> TokenLogProbability {
      let bytes = weights.bytes(of: llama_token(id))
      return TokenLogProbability(token: String(decoding: bytes, as: UTF8.self), bytes: bytes,
                                 logProbability: Double(logits[id]) - normalizer, topAlternatives: alternatives, tokenID: id)
    }
    entries.append(entry(Int(token), alternatives: top.map { entry($0) }))
  }

  /// Σ exp(l − `largest`) over the finite logits: `log` of it plus `largest` is log Σ exp(l) without
  /// overflow. Blocks of 1,024 are summed in `Float` (each term is at most 1) and added up in
  /// `Double`.
  static func sumOfExponentials(_ logits: UnsafePointer<Float>, count: Int, minus largest: Float) -> Double {
    var total = 0.0, start = 0
    while start < count {
      let end = min(start + 1024, count)
      var block: Float = 0
      var index = start
      while index < end {
        let value = logits[index]
        if value.isFinite { block += expf(value - largest) }
        index += 1
      }
      total += Double(block)
      start = end
    }
    return total
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

  /// At the end: the entries not handed on yet that belong to the answer — all of them, or after a
  /// stop sequence (whose text the answer leaves out) those that begin within the answer's first
  /// `textBytes` bytes.
  mutating func takeRest(metStopSequence: Bool, textBytes: Int) -> [TokenLogProbability] {
    guard metStopSequence else {
      defer { delivered = entries.count }
      return Array(entries[delivered...])
    }
    return takeDelivered(textBytes: textBytes)
  }

  /// Every entry handed on so far: after ``takeRest(metStopSequence:textBytes:)``, the answer's.
  var handedOn: [TokenLogProbability] { Array(entries[..<delivered]) }

  /// The positions of the `wanted` largest finite values, largest first (the first on a tie): one
  /// compare per logit against the smallest kept so far, an insertion only for a larger one.
  static func largest(_ wanted: Int, in logits: UnsafePointer<Float>, count: Int) -> [Int] {
    guard wanted > 0 else { return [] }
    var values: [Float] = [], indices: [Int] = []
    values.reserveCapacity(wanted + 1)
    indices.reserveCapacity(wanted + 1)
    var threshold = -Float.infinity   // the smallest kept once `wanted` are kept
    var index = 0
    while index < count {
      let value = logits[index]
      if value.isFinite, values.count < wanted || value > threshold {
        var position = values.count
        while position > 0, value > values[position - 1] { position -= 1 }
        values.insert(value, at: position)
        indices.insert(index, at: position)
        if values.count > wanted {
          values.removeLast()
          indices.removeLast()
        }
        if values.count == wanted { threshold = values[wanted - 1] }
      }
      index += 1
    }
    return indices
  }
}
