import HybridAI

/// Routes a generation's text: an answer streams as text deltas; tool calls are held back and
/// become one ``GenerationEvent/toolCalls(_:)`` event at the end.
///
/// - HybridAI's documented format (``ToolCallFormat``): text starting with `<` is tool calls.
/// - The model's own format (``DecodingGuidance/nativeToolCalls``): the text so far is read by the
///   template's parser after each delta, and only the answer's content is streamed (a call's
///   markup, and reasoning, never reach the client as text).
struct GuidedOutput {
  private enum Mode { case undecided, answer, toolCalls, native(ChatRendering) }

  private var mode: Mode
  private var heldText = ""
  /// In the native mode: the content streamed so far.
  private var streamedContent = ""

  init(guidance: DecodingGuidance?) {
    if let rendering = guidance?.nativeToolCalls {
      mode = .native(rendering)
    } else {
      mode = guidance?.offersTools == true ? .undecided : .answer
    }
  }

  /// Hands a text delta on, or holds it when it belongs to tool calls.
  mutating func route(_ delta: String, to yield: (GenerationEvent) -> Void) {
    switch mode {
    case .undecided:
      heldText += delta
      guard let first = heldText.first else { return }
      if ToolCallFormat.isToolCallText(String(first)) {
        mode = .toolCalls
      } else {
        mode = .answer
        yield(.textDelta(heldText))
        heldText = ""
      }
    case .answer:
      yield(.textDelta(delta))
    case .toolCalls:
      heldText += delta
    case .native(let rendering):
      heldText += delta
      if let parsed = try? rendering.parse(heldText, isPartial: true) { streamContent(of: parsed, to: yield) }
    }
  }

  /// At the end of the generation: the tool calls, when the output was tool calls.
  mutating func finish(to yield: (GenerationEvent) -> Void) throws(OnDeviceModelError) {
    defer { heldText = "" }
    switch mode {
    case .toolCalls:
      yield(.toolCalls(try ToolCallFormat.parseCalls(heldText)))
    case .undecided:
      if !heldText.isEmpty { yield(.textDelta(heldText)) }
    case .answer:
      break
    case .native(let rendering):
      let (parsed, calls) = try Self.readNativeCalls(heldText, with: rendering)
      streamContent(of: parsed, to: yield)
      if !calls.isEmpty { yield(.toolCalls(calls)) }
    }
  }

  /// The answer and its complete calls. A last call cut short (by the token limit) is left out,
  /// as in HybridAI's format; when no call is complete, ``OnDeviceModelError/invalidToolCall(_:reason:)``.
  private static func readNativeCalls(_ text: String, with rendering: ChatRendering)
    throws(OnDeviceModelError) -> (ChatRendering.ParsedMessage, [Transcript.ToolCall]) {
    let finished = Result { () throws(OnDeviceModelError) in try rendering.parse(text, isPartial: false) }
    if case .success(let parsed) = finished, let calls = complete(parsed), calls.count == parsed.tool_calls?.count ?? 0 {
      return (parsed, calls)
    }
    // Read it as unfinished: every call but a cut-off last one is complete.
    let partial = try rendering.parse(text, isPartial: true)
    let calls = complete(partial) ?? []
    guard !calls.isEmpty else {
      if case .failure(let error) = finished, partial.tool_calls?.isEmpty ?? true { throw error }
      throw .invalidToolCall(text, reason: OnDeviceModelError.toolCallCutShortReason)
    }
    return (partial, calls)
  }

  /// The calls of `parsed` whose arguments are JSON, in order, up to the first that is not.
  private static func complete(_ parsed: ChatRendering.ParsedMessage) -> [Transcript.ToolCall]? {
    var calls: [Transcript.ToolCall] = []
    for call in parsed.tool_calls ?? [] {
      let arguments = call.function.arguments.isEmpty ? "{}" : call.function.arguments
      guard let content = try? GeneratedContent(json: arguments) else { break }
      calls.append(Transcript.ToolCall(toolName: call.function.name, arguments: content))
    }
    return calls
  }

  /// Streams the part of the parsed content not streamed yet. Content a later parse revised
  /// (markup first read as text) is not streamed again.
  private mutating func streamContent(of parsed: ChatRendering.ParsedMessage, to yield: (GenerationEvent) -> Void) {
    let content = parsed.content ?? ""
    guard content.count > streamedContent.count, content.hasPrefix(streamedContent) else { return }
    yield(.textDelta(String(content.dropFirst(streamedContent.count))))
    streamedContent = content
  }
}
