import HybridAI

// The client's direction: a session's turn (transcript, options, tools, response format) becomes
// a Chat Completions request (used by OpenAIModel). The server's direction is in
// ChatCompletionRequest+GenerationRequest.swift.

extension ChatCompletionRequest {
  /// The request for one round of a session's turn, for `model`.
  ///
  /// - Instructions become one `system` message (entries joined by a blank line), first.
  /// - Prompts become `user` messages, responses `assistant` messages.
  /// - Tool calls become an `assistant` message's `tool_calls` (joined to the response just before
  ///   them, if any), with the calls' ids and arguments as JSON text; tool outputs become `tool`
  ///   messages answering those ids (a failed tool's text starts with `Error: `).
  /// - Options: greedy sampling becomes `temperature` 0 (and `seed` 0); nucleus sampling `top_p`
  ///   and `seed`; top-k sampling only its `seed` (the API has no top-k); `temperature`,
  ///   `max_completion_tokens`, `frequency_penalty`, `presence_penalty` and `stop` as they are;
  ///   `repetitionPenalty` is not sent (the API has none: OpenAI refuses unknown fields).
  /// - Tools become `tools`; the tool choice `tool_choice` (required with several named tools:
  ///   `required`, with only those tools offered).
  /// - A response format becomes `response_format` `json_schema` with its schema.
  ///
  /// Attachments become a text line naming each (``HybridAI/Transcript/AttachmentSegment/modelDescription``);
  /// ``init(_:model:sending:)`` sends the bytes of those the model reads.
  public init(_ request: GenerationRequest, model: String) {
    self.init(request, model: model, messages: Self.messages(of: request.transcript) { _ in nil })
  }

  /// The request for one round of a session's turn, for a model that reads `inputs`: the newest
  /// and older prompts' attachments of those kinds go as content parts — images as `image_url`
  /// (a `data:` URL, or the URL of a remote file), WAV and MP3 as `input_audio`, PDFs as `file`
  /// with a `data:` URL — the others as a line naming them.
  /// - Throws: ``HybridAI/AttachmentError`` when a stored attachment cannot be read.
  public init(_ request: GenerationRequest, model: String, sending inputs: Set<Modality>) throws(AttachmentError) {
    let messages = try Self.messages(of: request.transcript) { attachment throws(AttachmentError) in
      try Self.part(for: attachment, of: request, sending: inputs)
    }
    self.init(request, model: model, messages: messages)
  }

  private init(_ request: GenerationRequest, model: String, messages: [ChatMessage]) {
    self.init(model: model, messages: messages)
    let options = request.options
    switch options.sampling?.strategy {
    case .greedy?:
      temperature = 0
      seed = 0
    case .nucleus(let threshold, let seed)?:
      topP = threshold
      self.seed = seed.map { Int64(bitPattern: $0) }
    case .topK(_, let seed)?:
      self.seed = seed.map { Int64(bitPattern: $0) }
    case nil:
      break
    }
    if let value = options.temperature, options.sampling?.strategy != .greedy { temperature = value }
    maxCompletionTokens = options.maximumResponseTokens
    frequencyPenalty = options.frequencyPenalty
    presencePenalty = options.presencePenalty
    let stops = options.stopSequences.filter { !$0.isEmpty }
    if !stops.isEmpty { stop = ChatStop(stops) }
    if let alternatives = options.logProbabilities {
      logprobs = true
      topLogprobs = alternatives
    }

    var offered = request.tools
    if !offered.isEmpty {
      switch options.toolChoice {
      case nil: break
      case .none?: toolChoice = ChatToolChoice.none
      case .automatic?: toolChoice = .auto
      case .required(let names?)? where names.count == 1: toolChoice = .function(name: names[0])
      case .required(let names?)?:
        toolChoice = .required
        offered = offered.filter { names.contains($0.name) }
      case .required(nil)?: toolChoice = .required
      }
      parallelToolCalls = options.parallelToolCalls
      tools = offered.map { tool in
        ChatTool(function: .init(name: tool.name, description: tool.description.isEmpty ? nil : tool.description,
                                 parameters: tool.parameters.jsonSchema))
      }
    }
    if let format = request.responseFormat {
      responseFormat = .jsonSchema(name: format.name ?? "response", schema: format.schema.jsonSchema, strict: nil)
    }
  }

  /// The content part that carries `attachment`, or `nil` when the model gets a line naming it.
  private static func part(for attachment: Transcript.AttachmentSegment, of request: GenerationRequest,
                           sending inputs: Set<Modality>) throws(AttachmentError) -> ChatMessage.Part? {
    guard inputs.contains(attachment.modality) else { return nil }
    let mimeType = attachment.mimeType
    if let uri = attachment.remoteURL {
      guard attachment.modality == .image, uri.scheme == "https" || uri.scheme == "http" else { return nil }
      return ChatMessage.Part(type: "image_url", imageURL: .init(url: uri.absoluteString))
    }
    switch (attachment.modality, mimeType) {
    case (.image, _):
      let bytes = try request.contents(of: attachment)
      return ChatMessage.Part(type: "image_url", imageURL: .init(url: "data:\(mimeType);base64,\(bytes.base64EncodedString())"))
    case (.audio, "audio/wav"), (.audio, "audio/mpeg"):
      let bytes = try request.contents(of: attachment)
      return ChatMessage.Part(type: "input_audio",
                              inputAudio: .init(data: bytes.base64EncodedString(), format: mimeType == "audio/wav" ? "wav" : "mp3"))
    case (.document, "application/pdf"):
      let bytes = try request.contents(of: attachment)
      return ChatMessage.Part(type: "file", file: .init(fileData: "data:\(mimeType);base64,\(bytes.base64EncodedString())",
                                                        filename: attachment.reference.name))
    default:
      return nil
    }
  }

  /// The conversation as messages; `attachmentPart` gives the part that carries an attachment of
  /// a prompt, or `nil` for a line naming it.
  static func messages<Failure: Error>(
    of transcript: Transcript, attachmentPart: (Transcript.AttachmentSegment) throws(Failure) -> ChatMessage.Part?
  ) throws(Failure) -> [ChatMessage] {
    var instructions: [String] = []
    var messages: [ChatMessage] = []
    var previousWasResponse = false
    for entry in transcript {
      var isResponse = false
      switch entry {
      case .instructions(let entry):
        instructions.append(entry.segments.text)
      case .prompt(let prompt):
        messages.append(ChatMessage(role: "user", content: try userContent(prompt.segments, attachmentPart: attachmentPart)))
      case .response(let response):
        messages.append(ChatMessage(role: "assistant", text: response.segments.textWithAttachmentReferences))
        isResponse = true
      case .toolCalls(let entry):
        let calls = entry.calls.map(ChatToolCall.init)
        if previousWasResponse, messages[messages.count - 1].toolCalls == nil {
          messages[messages.count - 1].toolCalls = calls
        } else {
          messages.append(ChatMessage(role: "assistant", content: nil, toolCalls: calls))
        }
      case .toolOutput(let output):
        // The API has no error flag on a tool result: a failed tool says so in its text.
        let text = output.isError ? "Error: \(output.segments.text)" : output.segments.text
        messages.append(ChatMessage(role: "tool", content: .text(text), toolCallID: output.callID))
      }
      previousWasResponse = isResponse
    }
    if !instructions.isEmpty {
      messages.insert(ChatMessage(role: "system", text: instructions.joined(separator: "\n\n")), at: 0)
    }
    return messages
  }

  /// A prompt's content: its text with a line per attachment when none goes as a part, else parts in order.
  private static func userContent<Failure: Error>(
    _ segments: [Transcript.Segment], attachmentPart: (Transcript.AttachmentSegment) throws(Failure) -> ChatMessage.Part?
  ) throws(Failure) -> ChatMessage.Content {
    var parts: [ChatMessage.Part] = []
    var sendsFiles = false
    for segment in segments {
      switch segment {
      case .text(let text): parts.append(.text(text.content))
      case .attachment(let attachment):
        if let part = try attachmentPart(attachment) {
          parts.append(part)
          sendsFiles = true
        } else {
          parts.append(.text(attachment.modelDescription))
        }
      }
    }
    return sendsFiles ? .parts(parts) : .text(segments.textWithAttachmentReferences)
  }
}
