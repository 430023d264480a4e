import HybridAI

/// The chat messages an on-device model reads for a request: the transcript, with the tools in
/// the system message (see ``ToolCallFormat``) and, where a prompt asked for structured output,
/// the schema after its text.
enum TranscriptRendering {
  struct Message: Hashable {
    var role: String
    var content: String
  }

  static func messages(for transcript: Transcript, tools: [ToolDefinition]) -> [Message] {
    var messages: [Message] = []
    let toolPrompt = tools.isEmpty ? nil : ToolCallFormat.systemPrompt(for: tools)
    var hasSystemMessage = false
    for entry in transcript {
      switch entry {
      case .instructions(let instructions):
        let text = [instructions.segments.text, toolPrompt ?? ""].filter { !$0.isEmpty }.joined(separator: "\n\n")
        if !hasSystemMessage { messages.append(Message(role: "system", content: text)) }
        hasSystemMessage = true
      case .prompt(let prompt):
        messages.append(Message(role: "user", content: promptText(prompt)))
      case .response(let response):
        messages.append(Message(role: "assistant", content: response.segments.text))
      case .toolCalls(let calls):
        messages.append(Message(role: "assistant", content: ToolCallFormat.render(calls.calls)))
      case .toolOutput(let output):
        let text = ToolCallFormat.render([output])
        if let last = messages.last, last.role == "user", last.content.hasPrefix("<tool_response>") {
          messages[messages.count - 1].content += "\n" + text
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

  private static func promptText(_ prompt: Transcript.Prompt) -> String {
    let text = prompt.segments.text
    guard let format = prompt.responseFormat, format.includeSchemaInPrompt else { return text }
    return text + "\n\nAnswer with JSON that follows this JSON Schema:\n" + format.schema.jsonSchema.jsonString
  }
}
