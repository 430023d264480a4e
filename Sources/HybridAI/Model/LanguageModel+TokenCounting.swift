/// Token counts of the pieces of a conversation, the way Foundation Models' `tokenCount(for:)`
/// reads: each is the prompt tokens of a request made of that piece alone, as the model reads it
/// (its chat template's framing included on device), so the numbers add up to what a request costs.
///
/// ```swift
/// let model = SystemLanguageModel.default
/// let limit = try await model.contextSize                     // 4096
/// let prompt = try await model.tokenCount(for: "Why is the sky blue?")
/// let tools = try await model.tokenCount(for: [WeatherTool()]) // what declaring the tools adds
/// ```
extension LanguageModel {
  /// The tokens of a request whose transcript is `prompt` alone.
  public func tokenCount(for prompt: String) async throws -> Int {
    try await tokenCount(for: Transcript(entries: [.prompt(Transcript.Prompt(text: prompt))]))
  }

  /// The tokens of instructions alone (rendered as the system turn).
  public func tokenCount(forInstructions instructions: String) async throws -> Int {
    try await tokenCount(for: Transcript(entries: [.instructions(Transcript.Instructions(text: instructions))]))
  }

  /// The tokens that declaring `tools` adds to a request.
  public func tokenCount(for tools: [any Tool]) async throws -> Int {
    let definitions = tools.map(\.definition)
    let bare = Transcript(entries: [.instructions(Transcript.Instructions(text: ""))])
    let declared = Transcript(entries: [.instructions(Transcript.Instructions(text: "", toolDefinitions: definitions))])
    let without = try await tokenCount(for: GenerationRequest(transcript: bare, options: GenerationOptions()))
    let with = try await tokenCount(for: GenerationRequest(transcript: declared, options: GenerationOptions(),
                                                           tools: definitions))
    return max(0, with - without)
  }

  /// The tokens of a whole transcript, with the tools its instructions declare.
  public func tokenCount(for transcript: Transcript) async throws -> Int {
    try await tokenCount(for: GenerationRequest(transcript: transcript, options: GenerationOptions(),
                                                tools: transcript.declaredTools))
  }
}

extension Transcript {
  /// The tools declared by the transcript's instructions (the last instructions entry's).
  public var declaredTools: [ToolDefinition] {
    for entry in entries.reversed() {
      if case .instructions(let instructions) = entry { return instructions.toolDefinitions }
    }
    return []
  }
}
