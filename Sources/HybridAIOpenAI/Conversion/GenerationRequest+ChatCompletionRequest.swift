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
  ///   `max_completion_tokens` and `stop` as they are.
  /// - Tools become `tools`; the tool choice `tool_choice` (required with several named tools:
  ///   `required`, with only those tools offered).
  /// - A response format becomes `response_format` `json_schema` with its schema.
  public init(_ request: GenerationRequest, model: String) {
    self.init(model: model, messages: Self.messages(of: request.transcript))
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
    let stops = options.stopSequences.filter { !$0.isEmpty }
    if !stops.isEmpty { stop = ChatStop(stops) }

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
      tools = offered.map { tool in
        ChatTool(function: .init(name: tool.name, description: tool.description.isEmpty ? nil : tool.description,
                                 parameters: tool.parameters.jsonSchema))
      }
    }
    if let format = request.responseFormat {
      responseFormat = .jsonSchema(name: format.name ?? "response", schema: format.schema.jsonSchema, strict: nil)
    }
  }

  /// The conversation as messages.
  static func messages(of transcript: Transcript) -> [ChatMessage] {
    var instructions: [String] = []
    var messages: [ChatMessage] = []
    var previousWasResponse = false
    for entry in transcript {
      var isResponse = false
      switch entry {
      case .instructions(let entry):
        instructions.append(entry.segments.text)
      case .prompt(let prompt):
        messages.append(ChatMessage(role: "user", text: prompt.segments.textWithAttachmentReferences))
      case .response(let response):
        messages.append(ChatMessage(role: "assistant", text: response.segments.text))
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
}
