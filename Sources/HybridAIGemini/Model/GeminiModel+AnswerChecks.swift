import HybridAI

extension GeminiModel {
  /// The ways `value` breaks `schema`, for people; empty when it follows the schema.
  ///
  /// Keywords the validator cannot check (Gemini may honour more than guided generation does)
  /// are not held against the model: only violations of the checkable keywords count.
  static func violations(of value: JSONValue, against schema: JSONValue) -> [String] {
    JSONSchemaValidator(schema: schema).validate(value)
      .filter { !$0.isUncheckedKeyword }
      .map(\.description)
  }

  /// The tool calls of an answer's `functionCall` parts, in order, each checked against the
  /// offered tools.
  ///
  /// - Throws: ``HybridAI/GenerationError/unknownTool(name:arguments:)`` for a function that is
  ///   not offered; ``HybridAI/GenerationError/invalidToolArguments(toolName:arguments:reason:)``
  ///   for arguments that are not an object or do not follow the tool's parameters schema.
  func checkedToolCalls(in content: Gemini.Content?, offered tools: [ToolDefinition]) throws -> [Transcript.ToolCall] {
    var calls: [Transcript.ToolCall] = []
    for part in content?.parts ?? [] {
      guard case .functionCall(let call) = part.data else { continue }
      let arguments = call.args ?? .object([:])
      guard let tool = tools.first(where: { $0.name == call.name }) else {
        logger.warning("Gemini called an unknown tool", metadata: ["tool": "\(call.name)"])
        throw GenerationError.unknownTool(name: call.name, arguments: GeneratedContent(arguments).jsonString)
      }
      let toolCall = Transcript.ToolCall(gemini: call, parameters: tool.parameters)
      var violations = Self.violations(of: arguments, against: tool.parameters.jsonSchema)
      if case .object = arguments {} else { violations.insert("the arguments are not a JSON object", at: 0) }
      guard violations.isEmpty else {
        logger.warning("Gemini called a tool with invalid arguments",
                       metadata: ["tool": "\(call.name)", "violations": "\(violations)"])
        throw GenerationError.invalidToolArguments(toolName: call.name, arguments: toolCall.arguments.jsonString,
                                                   reason: violations.joined(separator: "; "))
      }
      calls.append(toolCall)
    }
    return calls
  }

  /// Checks that a structured answer is JSON following the format's schema.
  ///
  /// - Throws: ``HybridAI/GenerationError/invalidStructuredOutput(rawContent:reason:)``.
  func checkStructuredAnswer(_ text: String, format: ResponseFormat) throws {
    let content: GeneratedContent
    do {
      content = try GeneratedContent(json: text)
    } catch {
      throw GenerationError.invalidStructuredOutput(rawContent: text, reason: "\(error)")
    }
    let violations = Self.violations(of: content.jsonValue, against: format.schema.jsonSchema)
    guard violations.isEmpty else {
      throw GenerationError.invalidStructuredOutput(rawContent: text, reason: violations.joined(separator: "; "))
    }
  }
}
