extension GenerativeModelSession {
  /// Tokens the model's context window holds (see ``LanguageModel/contextSize``).
  public var contextSize: Int {
    get async throws { try await model.contextSize }
  }

  /// The tokens the conversation so far takes: instructions, tool declarations and every turn.
  public func tokenCount() async throws -> Int {
    try await model.tokenCount(for: nextRequest(prompt: nil))
  }

  /// The prompt tokens the next request would take if it asked `prompt`: the conversation so far
  /// plus the new prompt — compare it with ``contextSize`` before asking.
  public func tokenCount(for prompt: String) async throws -> Int {
    try await model.tokenCount(for: nextRequest(prompt: prompt))
  }

  /// A request of the conversation so far and, when given, a new `prompt`, with the session's tools
  /// and cache state (default options).
  func nextRequest(prompt: String?) -> GenerationRequest {
    var transcript = self.transcript
    if let prompt { transcript.append(.prompt(Transcript.Prompt(text: prompt))) }
    return GenerationRequest(transcript: transcript, options: GenerationOptions(), sessionState: modelState,
                             tools: tools.map(\.definition))
  }
}
