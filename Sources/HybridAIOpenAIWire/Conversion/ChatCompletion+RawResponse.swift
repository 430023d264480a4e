import HybridAI

// The server's direction of the answer conversions: a HybridAI model's answer (text, tool calls,
// completion) becomes Chat Completions' message, finish reason and usage.

extension ChatToolCall {
  /// The wire form of a HybridAI tool call (arguments as JSON text).
  public init(_ call: Transcript.ToolCall) {
    self.init(id: call.id, name: call.toolName, arguments: call.arguments.jsonString)
  }
}

extension ChatUsage {
  /// The usage of a HybridAI answer.
  public init(_ usage: Usage) {
    let drafted = usage.draftTokens > 0
    self.init(promptTokens: usage.promptTokens, completionTokens: usage.outputTokens,
              cachedTokens: usage.cachedPromptTokens, reasoningTokens: usage.reasoningTokens > 0 ? usage.reasoningTokens : nil,
              acceptedPredictionTokens: drafted ? usage.acceptedDraftTokens : nil,
              rejectedPredictionTokens: drafted ? usage.draftTokens - usage.acceptedDraftTokens : nil,
              audioTokens: usage.audioPromptTokens > 0 ? usage.audioPromptTokens : nil)
  }
}

extension ChatCompletion {
  /// OpenAI's finish reason for an answer: `tool_calls` when it called tools, `length` when it ran
  /// out of tokens or context, else `stop`.
  public static func finishReason(_ reason: FinishReason, calledTools: Bool) -> String {
    if calledTools { return "tool_calls" }
    switch reason {
    case .stop: return "stop"
    case .maxTokens, .contextWindowFull: return "length"
    case .other(let value): return value
    }
  }

  /// The assistant message of an answer: its text (`null` when it only called tools) and calls.
  public static func message(text: String, toolCalls: [Transcript.ToolCall]) -> ChatMessage {
    ChatMessage(role: "assistant", content: text.isEmpty && !toolCalls.isEmpty ? nil : .text(text),
                toolCalls: toolCalls.isEmpty ? nil : toolCalls.map(ChatToolCall.init))
  }
}
