/// Turns the bytes of sampled tokens into the text deltas a generation streams.
///
/// Per token: bytes become whole characters (``UTF8StreamDecoder``), stop sequences are found and
/// cut off (``StopSequenceMatcher``), and deltas are coalesced: the first text goes out at once,
/// later text at most once per ``emitInterval``. Used by every llama.cpp generation loop, single
/// sequence or batched, so that they stream identically.
struct GeneratedTextEmitter {
  /// The shortest time between two text deltas after the first. Handing on every token wakes the
  /// consumer 100+ times a second, which steals CPU from llama.cpp's threads on small machines;
  /// 20 ms is still smoother than a display refreshes.
  static let emitInterval = Duration.milliseconds(20)

  private var decoder = UTF8StreamDecoder()
  private var stops: StopSequenceMatcher
  /// Text not yet handed on (see ``emitInterval``).
  private var pending = ""
  private var lastEmit: ContinuousClock.Instant?
  /// Whether a stop sequence ended the text.
  private(set) var metStopSequence = false
  /// UTF-8 bytes of the text handed on so far.
  private(set) var emittedByteCount = 0

  init(stopSequences: [String]) {
    stops = StopSequenceMatcher(stopSequences: stopSequences)
  }

  /// Adds the bytes of one generated token, handing text to `emit` when it is due.
  ///
  /// Returns `true` when a stop sequence was met: the text before it has been emitted and
  /// generation should end (with ``FinishReason/stop``).
  mutating func append(_ bytes: [UInt8], emit: (String) -> Void) -> Bool {
    guard !metStopSequence else { return true }
    switch stops.append(decoder.append(bytes)) {
    case .emit(let text):
      pending += text
      let now = ContinuousClock.now
      if !pending.isEmpty, lastEmit.map({ now - $0 >= Self.emitInterval }) ?? true {
        emittedByteCount += pending.utf8.count
        emit(pending)
        pending = ""
        lastEmit = now
      }
      return false
    case .stop(let text):
      let last = pending + text
      emittedByteCount += last.utf8.count
      if !last.isEmpty { emit(last) }
      pending = ""
      metStopSequence = true
      return true
    }
  }

  /// The end of the generation: emits what was held back (coalesced text, the start of a stop
  /// sequence that never completed; a character the last token left unfinished is dropped).
  /// Nothing after a stop sequence.
  mutating func finish(emit: (String) -> Void) {
    guard !metStopSequence else { return }
    _ = decoder.finish()
    let tail = pending + stops.finish()
    emittedByteCount += tail.utf8.count
    if !tail.isEmpty { emit(tail) }
    pending = ""
  }
}
