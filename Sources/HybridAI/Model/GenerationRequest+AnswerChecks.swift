// Checks of a remote model's answer against what the request asked for. A cloud model is not
// constrained by a grammar the way the on-device model is, so its tool calls and structured
// answers are checked here before a session sees them (GeminiModel, OpenAIModel).

extension GenerationRequest {
  /// The offered tool that an answer called as `name` with `arguments`, once the arguments are
  /// checked against the tool's parameters schema.
  ///
  /// Keywords the validator cannot check (a server may honour more than guided generation does)
  /// are not held against the model: only violations of the checkable keywords count.
  ///
  /// - Throws: ``GenerationError/unknownTool(name:arguments:)`` for a function that is not
  ///   offered; ``GenerationError/invalidToolArguments(toolName:arguments:reason:)`` for arguments
  ///   that are not a JSON object or do not follow the tool's parameters schema.
  public func offeredTool(calledAs name: String, arguments: JSONValue) throws -> ToolDefinition {
    guard let tool = tools.first(where: { $0.name == name }) else {
      throw GenerationError.unknownTool(name: name, arguments: GeneratedContent(arguments).jsonString)
    }
    var violations = Self.violations(of: arguments, against: tool.parameters.jsonSchema)
    if case .object = arguments {} else { violations.insert("the arguments are not a JSON object", at: 0) }
    guard violations.isEmpty else {
      throw GenerationError.invalidToolArguments(toolName: name, arguments: GeneratedContent(arguments).jsonString,
                                                 reason: violations.joined(separator: "; "))
    }
    return tool
  }

  /// Checks that `text`, a whole answer without tool calls, is JSON following the request's
  /// response format; does nothing when the request asks for free text.
  ///
  /// - Parameter reachedTokenLimit: whether the answer ended at the token limit; a structured
  ///   answer that is not valid then is cut short, not wrong.
  /// - Throws: ``GenerationError/exceededTokenLimit(maximumTokens:rawContent:)`` for an answer cut
  ///   at the limit, else ``GenerationError/invalidStructuredOutput(rawContent:reason:)``.
  public func checkStructuredAnswer(_ text: String, reachedTokenLimit: Bool = false) throws {
    guard let format = responseFormat else { return }
    let failure: GenerationError
    do {
      let content = try GeneratedContent(json: text)
      let violations = Self.violations(of: content.jsonValue, against: format.schema.jsonSchema)
      if violations.isEmpty { return }
      failure = .invalidStructuredOutput(rawContent: text, reason: violations.joined(separator: "; "))
    } catch {
      failure = .invalidStructuredOutput(rawContent: text, reason: "\(error)")
    }
    if reachedTokenLimit {
      throw GenerationError.exceededTokenLimit(maximumTokens: options.maximumResponseTokens, rawContent: text)
    }
    throw failure
  }

  /// The ways `value` breaks `schema` in keywords the validator can check, for people.
  static func violations(of value: JSONValue, against schema: JSONValue) -> [String] {
    JSONSchemaValidator(schema: schema).validate(value)
      .filter { !$0.isUncheckedKeyword }
      .map(\.description)
  }
}
