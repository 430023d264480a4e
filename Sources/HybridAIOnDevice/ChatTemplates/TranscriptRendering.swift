import HybridAI

/// The chat messages an on-device model reads for a request, in one of two tool styles:
///
/// - ``ToolStyle/native``: tools, tool calls and tool results are handed to the model's own Jinja
///   template, which writes them in the model's own format (Qwen's `<tool_call>`, Llama 3's
///   `<|python_tag|>`, Gemma's `<|tool_call>`, …).
/// - ``ToolStyle/documented``: for templates that cannot (SmolLM2's, ChatML, llama.cpp's
///   built-in ones): the tools go into the system message and calls and results are text in
///   HybridAI's documented format (see ``ToolCallFormat``).
///
/// Where a prompt asked for structured output, the schema follows its text.
enum TranscriptRendering {
  enum ToolStyle { case native, documented }

  /// The messages of `request`'s transcript. Attachments the model reads (with `media`, through
  /// its projector) become `media`'s marker in their place; the others a line naming each,
  /// plain-text files with their contents (``HybridAI/GenerationRequest/readableText(of:)``).
  static func messages(for request: GenerationRequest, style: ToolStyle,
                       media: MediaRendering? = nil) -> [ChatTemplateRequest.Message] {
    typealias Message = ChatTemplateRequest.Message
    let (transcript, tools) = (request.transcript, request.tools)
    var messages: [Message] = []
    let toolPrompt = tools.isEmpty || style == .native ? nil : ToolCallFormat.systemPrompt(for: tools)
    var hasSystemMessage = false
    for entry in transcript {
      switch entry {
      case .instructions(let instructions):
        let text = [instructions.segments.text, toolPrompt ?? ""].filter { !$0.isEmpty }.joined(separator: "\n\n")
        if !hasSystemMessage { messages.append(Message(role: "system", content: text)) }
        hasSystemMessage = true
      case .prompt(let prompt):
        messages.append(Message(role: "user", content: promptText(prompt, in: request, media: media)))
      case .response(let response):
        messages.append(Message(role: "assistant", content: response.segments.text))
      case .toolCalls(let calls) where style == .native:
        messages.append(Message(role: "assistant", content: nil, toolCalls: calls.calls.map {
          ChatTemplateRequest.ToolCall(id: $0.id, function: .init(name: $0.toolName, arguments: $0.arguments.jsonString))
        }))
      case .toolCalls(let calls):
        messages.append(Message(role: "assistant", content: ToolCallFormat.render(calls.calls)))
      case .toolOutput(let output) where style == .native:
        messages.append(Message(role: "tool", content: output.segments.text, toolCallID: output.callID, name: output.toolName))
      case .toolOutput(let output):
        let text = ToolCallFormat.render([output])
        if let last = messages.last, last.role == "user", last.content?.hasPrefix("<tool_response>") == true {
          messages[messages.count - 1].content? += "\n" + text
        } else {
          messages.append(Message(role: "user", content: text))
        }
      }
    }
    if !hasSystemMessage, let toolPrompt {
      messages.insert(Message(role: "system", content: toolPrompt), at: 0)
    }
    return messages
  }

  private static func promptText(_ prompt: Transcript.Prompt, in request: GenerationRequest, media: MediaRendering?) -> String {
    let text = media?.content(of: prompt.segments, in: request) ?? request.readableText(of: prompt.segments)
    guard let format = prompt.responseFormat, format.includeSchemaInPrompt else { return text }
    return text + "\n\nAnswer with JSON that follows this JSON Schema:\n" + format.schema.jsonSchema.jsonString
  }
}
