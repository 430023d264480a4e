import HybridAI

/// What a ``JinjaChatTemplate`` renders: a conversation in the OpenAI Chat Completions shape that
/// llama.cpp's `common` reads (`common_chat_msgs_parse_oaicompat`).
struct ChatTemplateRequest: Encodable, Hashable {
  struct Message: Encodable, Hashable {
    var role: String
    /// `nil` only for an assistant message that holds tool calls alone.
    var content: String?
    var tool_calls: [ToolCall]?
    var tool_call_id: String?
    var name: String?

    init(role: String, content: String?, toolCalls: [ToolCall]? = nil, toolCallID: String? = nil, name: String? = nil) {
      self.role = role
      self.content = content
      self.tool_calls = toolCalls
      self.tool_call_id = toolCallID
      self.name = name
    }
  }

  struct ToolCall: Encodable, Hashable {
    struct Function: Encodable, Hashable {
      var name: String
      /// The arguments as JSON text.
      var arguments: String
    }
    var type = "function"
    var id: String
    var function: Function
  }

  struct Tool: Encodable, Hashable {
    struct Function: Encodable, Hashable {
      var name: String
      var description: String
      var parameters: JSONValue
    }
    var type = "function"
    var function: Function

    init(_ tool: ToolDefinition) {
      function = Function(name: tool.name, description: tool.description, parameters: tool.parameters.jsonSchema)
    }
  }

  var messages: [Message]
  var tools: [Tool]?
  /// `auto`, `none` or `required`.
  var tool_choice: String?
  /// Several calls in one answer (common's grammar); `nil`: one.
  var parallel_tool_calls: Bool?
  var add_generation_prompt = true
  /// Only the rendering's prompt is read (HybridAI's own format reads the answer): a request without
  /// tools or tool calls may then skip common's analysis of the template (see
  /// ``JinjaChatTemplate/rendersPromptsDirectly``).
  var prompt_only: Bool?
}
