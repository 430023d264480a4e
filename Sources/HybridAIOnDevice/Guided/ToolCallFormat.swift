import HybridAI

/// How tools are offered to an on-device model and how its calls look.
///
/// The format is the Hermes / Qwen convention, which is the model's own for chat templates that
/// use `<tool_call>` (Qwen 2.5, Hermes), and our documented format for every other model (llama.cpp
/// applies templates without running their Jinja, so a template's own tool syntax is not available):
///
/// - the system message lists the tools, one JSON object per line inside `<tools></tools>`;
/// - the model calls tools by answering only with one block per call:
///   `<tool_call>\n{"name": "get_time", "arguments": {"timeZone": "UTC"}}\n</tool_call>`;
/// - tool outputs come back in a user message, one block per output:
///   `<tool_response>\n{"name": "get_time", "content": "12:00"}\n</tool_response>`.
///
/// While decoding, a grammar makes the answer either such tool calls (arguments valid for each
/// tool's schema) or an answer that does not start with `<`.
enum ToolCallFormat {
  static let callOpening = "<tool_call>\n"
  static let callClosing = "\n</tool_call>"
  /// The most calls one answer may hold (keeps a small model from repeating calls forever).
  static let maximumCallsPerTurn = 4

  /// The text added to the system message.
  static func systemPrompt(for tools: [ToolDefinition]) -> String {
    let lines = tools.map { tool -> String in
      let json: JSONValue = ["name": .string(tool.name), "description": .string(tool.description),
                             "parameters": tool.parameters.jsonSchema]
      return json.jsonString
    }
    return """
      You can call tools. To call tools, answer only with one block per call, in this form:
      <tool_call>
      {"name": "<tool name>", "arguments": <the arguments as a JSON object>}
      </tool_call>
      Tool results come back in <tool_response> blocks. When you need no tool, answer normally.
      The tools:
      <tools>
      \(lines.joined(separator: "\n"))
      </tools>
      """
  }

  /// The assistant message for tool calls, as the model would have generated it.
  static func render(_ calls: [Transcript.ToolCall]) -> String {
    calls.map { call in
      callOpening + "{\"name\": " + quoted(call.toolName) + ", \"arguments\": " + call.arguments.jsonString + "}" + callClosing
    }.joined(separator: "\n")
  }

  /// The user message carrying tool outputs.
  static func render(_ outputs: [Transcript.ToolOutput]) -> String {
    outputs.map { output in
      let json: JSONValue = ["name": .string(output.toolName), "content": .string(output.segments.text)]
      return "<tool_response>\n" + json.jsonString + "\n</tool_response>"
    }.joined(separator: "\n")
  }

  /// Whether generated text is (the start of) tool calls rather than an answer.
  static func isToolCallText(_ text: some StringProtocol) -> Bool {
    text.hasPrefix("<")
  }

  /// The calls in text generated under the tool grammar. A last call cut short by the token
  /// limit is left out; throws when not one call is complete.
  static func parseCalls(_ text: String) throws(OnDeviceModelError) -> [Transcript.ToolCall] {
    var calls: [Transcript.ToolCall] = []
    var rest = Substring(text)
    while let start = rest.range(of: callOpening) {
      guard let end = rest.range(of: callClosing, range: start.upperBound..<rest.endIndex) else { break }
      let body = String(rest[start.upperBound..<end.lowerBound])
      let content: GeneratedContent
      do { content = try GeneratedContent(json: body) } catch {
        throw .invalidToolCall(text, reason: "\(error)")
      }
      guard let name = try? content.value(String.self, forProperty: "name"),
            let arguments = try? content.value(GeneratedContent.self, forProperty: "arguments") else {
        throw .invalidToolCall(text, reason: "a call needs \"name\" and \"arguments\"")
      }
      calls.append(Transcript.ToolCall(toolName: name, arguments: arguments))
      rest = rest[end.upperBound...]
    }
    guard !calls.isEmpty else {
      throw .invalidToolCall(text, reason: text.contains(callOpening) || callOpening.hasPrefix(text)
      ? OnDeviceModelError.toolCallCutShortReason : "no <tool_call> block")
    }
    return calls
  }

  private static func quoted(_ text: String) -> String { JSONValue.string(text).jsonString }
}
