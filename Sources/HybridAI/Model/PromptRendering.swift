/// How a model turns a ``GenerationRequest``'s transcript into what it reads.
public enum PromptRendering: Sendable, Hashable {
  /// The conversation in the model's chat template (instructions, history, tools, the last
  /// prompt, then the turn of the model): what sessions send.
  case chatTemplate
  /// The last prompt's text is the whole input, read as it is, and the model continues it: a text
  /// completion (OpenAI's legacy `/v1/completions`). The transcript must be that one prompt of
  /// text, without tools or a response format. On-device models only; cloud models report the
  /// request unsupported.
  case plainText
}

extension GenerationRequest {
  /// The text a ``PromptRendering/plainText`` request continues. Throws
  /// ``GenerationError/unsupportedRequest(_:)`` when the request is more than one prompt of text.
  public func plainTextPrompt() throws(GenerationError) -> String {
    guard transcript.count == 1, case .prompt(let prompt)? = transcript.last else {
      throw .unsupportedRequest(.other("a text completion continues one prompt: the transcript has \(transcript.count) entries"))
    }
    guard prompt.segments.attachments.isEmpty else { throw .unsupportedRequest(.unsupportedInput("attachments in a text completion")) }
    guard tools.isEmpty else { throw .unsupportedRequest(.other("a text completion has no tools")) }
    guard responseFormat == nil else { throw .unsupportedRequest(.other("a text completion has no response format")) }
    let text = prompt.segments.text
    guard !text.isEmpty else { throw .unsupportedRequest(.other("the text to complete is empty")) }
    return text
  }
}

extension GenerationRequest {
  /// Whether a model that only takes conversations (a cloud model) can serve this request: not a
  /// ``PromptRendering/plainText`` one.
  public var conversationSupport: RequestSupport {
    promptRendering == .plainText ? .unsupported(.other("text completions (no chat template) run on device only")) : .supported
  }

  /// Throws ``GenerationError/unsupportedRequest(_:)`` when ``conversationSupport`` says no.
  public func requireConversation() throws(GenerationError) {
    if case .unsupported(let reason) = conversationSupport { throw .unsupportedRequest(reason) }
  }
}
