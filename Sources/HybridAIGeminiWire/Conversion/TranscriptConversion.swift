import HybridAI

// The client's direction of the request conversions: a session's turn (transcript, options,
// tools, response format) becomes a Gemini request (used by GeminiModel). The server's direction
// is in GenerationRequestConversion.swift.

extension GenerateContentRequest {
  /// The request for one round of a session's turn: ``init(transcript:options:)`` plus the
  /// request's tools and response format.
  ///
  /// - `tools` become one tool with a `functionDeclarations` entry per tool (its schema as
  ///   `parametersJsonSchema`).
  /// - `options.toolChoice` becomes `toolConfig.functionCallingConfig` (see
  ///   ``Gemini/ToolConfig/init(toolChoice:)``), unless the options carry a
  ///   ``Gemini/ToolConfig`` (`.gemini(toolConfig:)`), which is sent as it is. Tool choice and
  ///   tool config are left out when there are no tools.
  /// - `responseFormat` becomes `generationConfig.responseMimeType` `application/json` and
  ///   `responseJsonSchema`, unless the attached ``GenerationConfig`` already sets
  ///   `responseSchema` or `responseJsonSchema`.
  ///
  /// Attachments are sent as `inlineData` (their bytes from the request's artifact store);
  /// throws ``HybridAI/AttachmentError`` for an attachment that cannot be read, or when they add
  /// up to more than ``Gemini/inlineDataLimit`` bytes (Gemini's request limit).
  public init(_ request: GenerationRequest) throws(AttachmentError) {
    var inlineBytes = 0
    try self.init(transcript: request.transcript, options: request.options) { attachment throws(AttachmentError) in
      if let uri = attachment.remoteURL {
        return .fileData(Gemini.FileData(mimeType: attachment.mimeType, fileUri: uri.absoluteString))
      }
      let bytes = try request.contents(of: attachment)
      inlineBytes += bytes.count
      guard inlineBytes <= Gemini.inlineDataLimit else {
        throw .tooLarge(name: attachment.reference.name, size: Int64(inlineBytes), limit: Int64(Gemini.inlineDataLimit))
      }
      return .inlineData(Gemini.Blob(mimeType: attachment.mimeType, bytes: bytes))
    }
    let configuredTools = request.options[Gemini.ToolConfig.self]
    if !request.tools.isEmpty {
      tools = [Gemini.Tool(functionDeclarations: request.tools.map(Gemini.FunctionDeclaration.init))]
      toolConfig = configuredTools ?? Gemini.ToolConfig(toolChoice: request.options.toolChoice)
    } else {
      toolConfig = configuredTools
    }
    if let format = request.responseFormat {
      var config = generationConfig ?? GenerationConfig()
      if config.responseSchema == nil, config.responseJsonSchema == nil {
        config.responseMimeType = "application/json"
        config.responseJsonSchema = format.schema.jsonSchema
      }
      generationConfig = config
    }
  }

  /// The request for a session's turn, without tools or response format.
  ///
  /// - Instructions become `systemInstruction` (one text part per instructions entry).
  /// - Prompts become `user` contents.
  /// - Responses become `model` contents: the response's ``HybridAI/ProviderContent`` as it came
  ///   when its provider is `gemini` (so thoughts and thought signatures go back unchanged; the
  ///   files the model made, stored by the session, go back as their references, never their
  ///   bytes), otherwise one text part with the response's text.
  /// - Tool calls become `model` contents the same way: Gemini's own content as it came, or
  ///   `functionCall` parts (with the calls' ids) built from the calls of another model, the first
  ///   carrying ``Gemini/dummyThoughtSignature``.
  /// - Tool outputs become `functionResponse` parts (`{"result": text}` or `{"error": text}`) in
  ///   a `user` content, consecutive outputs in one content. A response carries its call's id
  ///   when that call was sent with one.
  /// - `options` become `generationConfig` (see ``GenerationConfig/forRequest(_:)``).
  ///
  /// Attachments become a text part naming each (``HybridAI/ArtifactReference/modelDescription``);
  /// ``init(_:)`` sends their bytes.
  public init(transcript: Transcript, options: GenerationOptions) {
    self.init(transcript: transcript, options: options) { .text(Self.attachmentReference($0)) }
  }

  private init<Failure: Error>(transcript: Transcript, options: GenerationOptions,
                               attachment: (Transcript.AttachmentSegment) throws(Failure) -> Gemini.Part) throws(Failure) {
    var system: [Gemini.Part] = []
    var contents: [Gemini.Content] = []
    var sentCallIDs: Set<String> = []
    var previousWasToolOutput = false
    for entry in transcript {
      var isToolOutput = false
      switch entry {
      case .instructions(let instructions):
        system.append(contentsOf: try Self.parts(instructions.segments, attachment: attachment))
      case .prompt(let prompt):
        contents.append(Gemini.Content(role: Gemini.Content.userRole, parts: try Self.parts(prompt.segments, attachment: attachment)))
      case .response(let response):
        contents.append(Self.modelContent(response))
      case .toolCalls(let calls):
        contents.append(Self.modelContent(calls, sentCallIDs: &sentCallIDs))
      case .toolOutput(let output):
        isToolOutput = true
        let id = sentCallIDs.contains(output.callID) ? output.callID : nil
        let part = Gemini.Part.functionResponse(Gemini.FunctionResponse(output, id: id))
        if previousWasToolOutput, !contents.isEmpty {
          contents[contents.count - 1].parts.append(part)
        } else {
          contents.append(Gemini.Content(role: Gemini.Content.userRole, parts: [part]))
        }
      }
      previousWasToolOutput = isToolOutput
    }
    self.init(contents: contents, systemInstruction: system.isEmpty ? nil : Gemini.Content(role: nil, parts: system),
              generationConfig: GenerationConfig.forRequest(options))
  }

  private static func parts<Failure: Error>(_ segments: [Transcript.Segment],
                                           attachment: (Transcript.AttachmentSegment) throws(Failure) -> Gemini.Part)
    throws(Failure) -> [Gemini.Part] {
    try segments.map { segment throws(Failure) in
      switch segment {
      case .text(let text): .text(text.content)
      case .attachment(let segment): try attachment(segment)
      }
    }
  }

  /// Gemini's own content of an answer, when the provider content is Gemini's.
  private static func providedContent(_ provided: ProviderContent?) -> Gemini.Content? {
    guard let provided, provided.provider == Gemini.providerName,
          var content = try? provided.content.decode(as: Gemini.Content.self), !content.parts.isEmpty
    else { return nil }
    content.role = Gemini.Content.modelRole
    return content
  }

  /// A model turn: Gemini's own content (the files it made named by their references), or the
  /// response's segments.
  private static func modelContent(_ response: Transcript.Response) -> Gemini.Content {
    if let provided = providedContent(response.providerContent) {
      return Gemini.replacingPlaceholders(in: provided, with: response.segments.attachments.map(attachmentReference))
    }
    return Gemini.Content(role: Gemini.Content.modelRole,
                          parts: parts(response.segments) { .text(attachmentReference($0)) })
  }

  /// What the model reads for an attachment it does not get the bytes of.
  private static func attachmentReference(_ attachment: Transcript.AttachmentSegment) -> String {
    attachment.modelDescription
  }

  private static func modelContent(_ entry: Transcript.ToolCalls, sentCallIDs: inout Set<String>) -> Gemini.Content {
    if let content = providedContent(entry.providerContent),
       content.parts.contains(where: { if case .functionCall = $0.data { true } else { false } }) {
      for part in content.parts {
        if case .functionCall(let call) = part.data, let id = call.id { sentCallIDs.insert(id) }
      }
      return content
    }
    let parts = entry.calls.enumerated().map { index, call in
      sentCallIDs.insert(call.id)
      return Gemini.Part(.functionCall(Gemini.FunctionCall(call)),
                         thoughtSignature: index == 0 ? Gemini.dummyThoughtSignature : nil)
    }
    return Gemini.Content(role: Gemini.Content.modelRole, parts: parts)
  }
}

extension Gemini {
  /// The ``HybridAI/ProviderContent/provider`` name of Gemini answers: `gemini`.
  public static let providerName = "gemini"
}
