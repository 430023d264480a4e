extension GenerativeModelSession {
  // MARK: - Prompts with attachments

  /// Answers `prompt` (text and attachments), waiting for the whole answer. Attachments are
  /// stored in ``artifactStore`` first (a new temporary store when the session has none); a
  /// model that cannot take an attachment's kind is routed around by a hybrid
  /// (``RawResponse/fallback`` says which kind), and throws
  /// ``GenerationError/unsupportedRequest(_:)`` naming it otherwise.
  @discardableResult
  public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
    try await streamResponse(to: prompt, options: options).collect()
  }

  /// Answers `prompt` (text and attachments) as a stream of growing snapshots.
  public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
    stream(prompt, options: options, format: nil, decoding: .text)
  }

  /// Answers `prompt` (text and attachments) with a value of `type`.
  public func respond<Content: Generable>(
    to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) async throws -> Response<Content> {
    try await streamResponse(to: prompt, generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
      .collect()
  }

  /// Answers `prompt` (text and attachments) with a value of `type`, as a stream of partially
  /// generated values.
  public func streamResponse<Content: Generable>(
    to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) -> ResponseStream<Content> {
    let format = ResponseFormat(type: Content.self, includeSchemaInPrompt: includeSchemaInPrompt)
    return stream(prompt, options: options, format: format, decoding: .structured(Content.self))
  }

  /// Answers `prompt` (text and attachments) with JSON following `schema`.
  public func respond(
    to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) async throws -> Response<GeneratedContent> {
    try await streamResponse(to: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
      .collect()
  }

  /// Answers `prompt` (text and attachments) with JSON following `schema`, as a stream of partial
  /// values.
  public func streamResponse(
    to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
    options: GenerationOptions = GenerationOptions()
  ) -> ResponseStream<GeneratedContent> {
    let format = ResponseFormat(schema: schema, includeSchemaInPrompt: includeSchemaInPrompt)
    return stream(prompt, options: options, format: format, decoding: .structured(GeneratedContent.self))
  }

  /// The prompt's segments with its attachments stored: consecutive texts become one text
  /// segment (joined with new lines), each attachment a reference. Attachments stored here are
  /// recorded on the turn, so a failed turn removes them again.
  func storeAttachments(of prompt: Prompt, turn: TurnArtifacts) throws -> [Transcript.Segment] {
    var segments: [Transcript.Segment] = []
    var pendingText: [String] = []
    func flushText() {
      if !pendingText.isEmpty { segments.append(.text(Transcript.TextSegment(content: pendingText.joined(separator: "\n")))) }
      pendingText.removeAll()
    }
    for part in prompt.parts {
      switch part {
      case .text(let text):
        pendingText.append(text)
      case .attachment(let attachment):
        flushText()
        if let uri = attachment.fileURI {   // the cloud model fetches it: nothing to store
          segments.append(.attachment(.remote(uri, name: attachment.name, mimeType: attachment.mimeType)))
          continue
        }
        let store = artifactStore
        let reference = try attachment.store(in: store)
        if case .stored = attachment.source {} else { turn.record(reference.id, in: store) }   // new: removed if the turn fails
        segments.append(.attachment(Transcript.AttachmentSegment(reference: reference)))
      }
    }
    flushText()
    return segments
  }
}
