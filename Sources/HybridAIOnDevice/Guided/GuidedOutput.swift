import HybridAI

/// Routes a generation's text: an answer streams as text deltas; tool calls (text starting with
/// `<` when tools are offered, see ``ToolCallFormat``) are held back and become one
/// ``GenerationEvent/toolCalls(_:)`` event at the end.
struct GuidedOutput {
  private enum Mode { case undecided, answer, toolCalls }

  private let offersTools: Bool
  private var mode: Mode
  private var heldText = ""

  init(offersTools: Bool) {
    self.offersTools = offersTools
    mode = offersTools ? .undecided : .answer
  }

  /// Whether the output so far is tool calls.
  var isToolCalls: Bool { mode == .toolCalls }

  /// Hands a text delta on, or holds it when it belongs to tool calls.
  mutating func route(_ delta: String, to yield: (GenerationEvent) -> Void) {
    if mode == .undecided {
      heldText += delta
      guard let first = heldText.first else { return }
      mode = ToolCallFormat.isToolCallText(String(first)) ? .toolCalls : .answer
      if mode == .answer {
        yield(.textDelta(heldText))
        heldText = ""
      }
      return
    }
    switch mode {
    case .answer: yield(.textDelta(delta))
    case .toolCalls, .undecided: heldText += delta
    }
  }

  /// At the end of the generation: the tool calls, when the output was tool calls.
  mutating func finish(to yield: (GenerationEvent) -> Void) throws(OnDeviceModelError) {
    switch mode {
    case .toolCalls:
      yield(.toolCalls(try ToolCallFormat.parseCalls(heldText)))
    case .undecided:
      if !heldText.isEmpty { yield(.textDelta(heldText)) }
    case .answer:
      break
    }
    heldText = ""
  }
}
