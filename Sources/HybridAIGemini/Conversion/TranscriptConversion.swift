import HybridAI

// Conversions between HybridAI's transcript and options and Gemini's request: the client's
// direction (transcript → request, used by GeminiModel) and the server's (request → transcript,
// used by a Gemini-compatible server that answers with an on-device model).

extension GenerateContentRequest {
  /// The request for a session's turn.
  ///
  /// - Instructions become `systemInstruction` (one text part per instructions entry).
  /// - Prompts become `user` contents.
  /// - Responses become `model` contents: the response's ``HybridAI/ProviderContent`` as it came
  ///   when its provider is `gemini` (so thoughts and thought signatures go back unchanged),
  ///   otherwise one text part with the response's text.
  /// - `options` become `generationConfig` (see ``GenerationConfig/forRequest(_:)``).
  public init(transcript: Transcript, options: GenerationOptions) {
    var system: [Gemini.Part] = []
    var contents: [Gemini.Content] = []
    for entry in transcript {
      switch entry {
      case .instructions(let instructions):
        system.append(contentsOf: Self.parts(instructions.segments))
      case .prompt(let prompt):
        contents.append(Gemini.Content(role: Gemini.Content.userRole, parts: Self.parts(prompt.segments)))
      case .response(let response):
        contents.append(Self.modelContent(response))
      case .toolCalls, .toolOutput:
        break  // TODO(issue 4): functionCall / functionResponse
      }
    }
    self.init(contents: contents, systemInstruction: system.isEmpty ? nil : Gemini.Content(role: nil, parts: system),
              generationConfig: GenerationConfig.forRequest(options))
  }

  private static func parts(_ segments: [Transcript.Segment]) -> [Gemini.Part] {
    segments.map { segment in
      switch segment {
      case .text(let text): .text(text.content)
      }
    }
  }

  private static func modelContent(_ response: Transcript.Response) -> Gemini.Content {
    if let provided = response.providerContent, provided.provider == Gemini.providerName,
       var content = try? provided.content.decode(as: Gemini.Content.self), !content.parts.isEmpty {
      content.role = Gemini.Content.modelRole
      return content
    }
    return Gemini.Content(role: Gemini.Content.modelRole, parts: parts(response.segments))
  }

  /// The transcript and options of this request, for a server that answers it with a HybridAI
  /// model.
  ///
  /// - `systemInstruction` becomes an instructions entry.
  /// - `user` contents (and contents without role) become prompts; `model` contents become
  ///   responses whose text is the non-thought text and whose ``HybridAI/ProviderContent`` is
  ///   the content as sent (provider `gemini`).
  /// - `generationConfig` becomes generic options with the configuration attached (see
  ///   ``HybridAI/GenerationOptions/init(geminiConfig:)``).
  ///
  /// - Throws: ``GeminiConversionError/unsupportedInput(_:)`` for parts other than text
  ///   (`inlineData`, `fileData`, function calls and responses, code), ``GeminiConversionError/unsupportedRole(_:)``
  ///   for roles other than `user` and `model`, ``GeminiConversionError/invalidOption(_:)``.
  public func transcriptAndOptions() throws -> (transcript: Transcript, options: GenerationOptions) {
    var transcript = Transcript()
    if let systemInstruction {
      let text = try Self.text(of: systemInstruction, keepingThoughts: false)
      if !text.isEmpty { transcript.append(.instructions(Transcript.Instructions(text: text))) }
    }
    let options = try generationConfig.map(GenerationOptions.init(geminiConfig:)) ?? GenerationOptions()
    for content in contents {
      switch content.role ?? Gemini.Content.userRole {
      case Gemini.Content.userRole:
        transcript.append(.prompt(Transcript.Prompt(text: try Self.text(of: content, keepingThoughts: false),
                                                    options: options)))
      case Gemini.Content.modelRole:
        let text = try Self.text(of: content, keepingThoughts: false)
        let provided = try? ProviderContent(provider: Gemini.providerName, content: JSONValue(encoding: content))
        transcript.append(.response(Transcript.Response(text: text, providerContent: provided)))
      case let role:
        throw GeminiConversionError.unsupportedRole(role)
      }
    }
    return (transcript, options)
  }

  /// The joined text of a content's text parts (thoughts left out); throws for other parts.
  private static func text(of content: Gemini.Content, keepingThoughts: Bool) throws -> String {
    var text = ""
    for part in content.parts {
      switch part.data {
      case .text(let value):
        if keepingThoughts || !part.isThought { text += value }
      case nil:
        continue
      case .inlineData(let blob):
        throw GeminiConversionError.unsupportedInput("inlineData (\(blob.mimeType))")
      case .fileData(let file):
        throw GeminiConversionError.unsupportedInput("fileData" + (file.mimeType.map { " (\($0))" } ?? ""))
      case let other?:
        throw GeminiConversionError.unsupportedInput(other.kind)
      }
    }
    return text
  }
}

extension Gemini {
  /// The ``HybridAI/ProviderContent/provider`` name of Gemini answers: `gemini`.
  public static let providerName = "gemini"
}
