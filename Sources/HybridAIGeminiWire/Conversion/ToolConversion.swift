import HybridAI

// Conversions between HybridAI's tools (definitions, tool choice, calls, outputs) and Gemini's
// function calling (function declarations, `functionCallingConfig`, `functionCall` and
// `functionResponse` parts), both ways.

extension Gemini {
  /// The `thoughtSignature` sent on a function call that no Gemini model made (a call of an
  /// on-device model, or one from a transcript built by hand).
  ///
  /// Gemini 3 rejects a conversation whose function calls in the current turn come back without
  /// a signature (the first `functionCall` part of each step must carry one). For history that
  /// another model produced, Google documents dummy signatures that skip this validation: the FAQ
  /// of https://ai.google.dev/gemini-api/docs/thought-signatures (transferring history from a
  /// different model) names `context_engineering_is_the_way_to_go` and
  /// `skip_thought_signature_validator`. The signature goes on the first function call of each
  /// model turn, where Gemini expects one.
  public static let dummyThoughtSignature = "skip_thought_signature_validator"
}

extension Gemini.FunctionDeclaration {
  /// The declaration of a HybridAI tool: name, description, and the tool's schema as
  /// `parametersJsonSchema`.
  public init(_ tool: ToolDefinition) {
    self.init(name: tool.name, description: tool.description.isEmpty ? nil : tool.description,
              parametersJsonSchema: tool.parameters.jsonSchema)
  }
}

extension ToolDefinition {
  /// The HybridAI tool a Gemini function declaration stands for (what a Gemini-compatible server
  /// gives its model): `parametersJsonSchema` as it is, or `parameters` converted from Gemini's
  /// OpenAPI subset (see ``HybridAI/GenerationSchema/init(geminiSchema:)``); a function without
  /// parameters takes an empty object.
  ///
  /// - Throws: ``GeminiConversionError/invalidSchema(_:)``.
  public init(gemini declaration: Gemini.FunctionDeclaration) throws {
    let parameters: GenerationSchema
    if let schema = declaration.parametersJsonSchema {
      guard case .object = schema else {
        throw GeminiConversionError.invalidSchema("parametersJsonSchema of \(declaration.name) must be an object")
      }
      parameters = GenerationSchema(jsonSchema: schema)
    } else if let schema = declaration.parameters {
      do {
        parameters = try GenerationSchema(geminiSchema: schema)
      } catch GeminiConversionError.invalidSchema(let detail) {
        throw GeminiConversionError.invalidSchema("parameters of \(declaration.name): \(detail)")
      }
    } else {
      parameters = GenerationSchema(jsonSchema: .object([
        "type": .string("object"), "properties": .object([:]), "additionalProperties": .bool(false),
      ]))
    }
    self.init(name: declaration.name, description: declaration.description ?? "", parameters: parameters)
  }
}

extension Gemini.ToolConfig {
  /// The `toolConfig` for a tool choice: `.required(tools:)` → `ANY` (with
  /// `allowedFunctionNames`), `.none` → `NONE`; `nil` for `.automatic` and `nil` (the API's
  /// default, `AUTO`, needs no config).
  public init?(toolChoice: ToolChoice?) {
    switch toolChoice {
    case .required(let tools)?:
      self.init(functionCallingConfig: Gemini.FunctionCallingConfig(mode: .any, allowedFunctionNames: tools))
    case .none?:
      self.init(functionCallingConfig: Gemini.FunctionCallingConfig(mode: .none))
    case .automatic?, nil:
      return nil
    }
  }
}

extension ToolChoice {
  /// The tool choice a `functionCallingConfig` asks for: `ANY` → `.required(tools:
  /// allowedFunctionNames)`, `NONE` → `.none`, `AUTO` and `VALIDATED` → `.automatic` (an
  /// on-device model constrains every call to its schema anyway); `nil` without a mode.
  ///
  /// - Throws: ``GeminiConversionError/invalidOption(_:)`` for an unknown mode.
  public init?(gemini config: Gemini.FunctionCallingConfig?) throws {
    guard let mode = config?.mode else { return nil }
    switch mode {
    case .any: self = .required(tools: config?.allowedFunctionNames)
    case .none: self = .none
    case .auto, .validated, Gemini.FunctionCallingConfig.Mode(rawValue: "MODE_UNSPECIFIED"): self = .automatic
    default: throw GeminiConversionError.invalidOption("unknown functionCallingConfig mode \(mode)")
    }
  }
}

extension Transcript.ToolCall {
  /// The tool call for a Gemini function call: Gemini's `id` (or a new one when it sent none),
  /// the name, and the arguments with their properties in the order `parameters` lists them
  /// (`propertyOrdering`; JSON objects on the wire have no order).
  public init(gemini call: Gemini.FunctionCall, parameters: GenerationSchema?) {
    let arguments = GeneratedContent(ordering: call.args ?? .object([:]), by: parameters?.jsonSchema)
    if let id = call.id, !id.isEmpty {
      self.init(id: id, toolName: call.name, arguments: arguments)
    } else {
      self.init(toolName: call.name, arguments: arguments)
    }
  }
}

extension Gemini.FunctionCall {
  /// The function call for a HybridAI tool call; `id` is left out when `includingID` is `false`.
  public init(_ call: Transcript.ToolCall, includingID: Bool = true) {
    self.init(id: includingID ? call.id : nil, name: call.toolName, args: call.arguments.jsonValue)
  }
}

extension Gemini.FunctionResponse {
  /// The function response for a tool's output: `{"result": text}`, or `{"error": text}` when
  /// the tool failed; `id` is the call's id when given.
  public init(_ output: Transcript.ToolOutput, id: String?) {
    let text = output.segments.textWithAttachmentReferences
    self.init(id: id, name: output.toolName, response: .object([output.isError ? "error" : "result": .string(text)]))
  }
}

extension Transcript.ToolOutput {
  /// The tool output a Gemini function response stands for: the text of `result` or `output`
  /// (JSON text when not a string), or of `error` (then ``isError``), or else the whole response
  /// as JSON text.
  public init(gemini response: Gemini.FunctionResponse, callID: String) {
    func text(_ value: JSONValue) -> String {
      if case .string(let string) = value { return string }
      return GeneratedContent(value).jsonString
    }
    let value = response.response
    if let result = value["result"] ?? value["output"] {
      self.init(callID: callID, toolName: response.name, text: text(result))
    } else if let error = value["error"] {
      self.init(callID: callID, toolName: response.name, text: text(error), isError: true)
    } else {
      self.init(callID: callID, toolName: response.name, text: text(value))
    }
  }
}

extension GeneratedContent {
  /// The content of a JSON value whose objects list their properties in the order `schema` gives
  /// (`propertyOrdering`, then `required`), and any others after them, sorted.
  init(ordering value: JSONValue, by schema: JSONValue?) {
    switch value {
    case .array(let items):
      self.init(kind: .array(items.map { GeneratedContent(ordering: $0, by: schema?["items"]) }))
    case .object(let members):
      var order: [String] = []
      for list in [schema?["propertyOrdering"], schema?["required"]] {
        guard case .array(let names)? = list else { continue }
        for case .string(let name) in names where members[name] != nil && !order.contains(name) { order.append(name) }
      }
      order += members.keys.filter { !order.contains($0) }.sorted()
      var properties: [String: GeneratedContent] = [:]
      for (name, member) in members {
        properties[name] = GeneratedContent(ordering: member, by: schema?["properties"]?[name])
      }
      self.init(kind: .structure(properties: properties, orderedKeys: order))
    default:
      self.init(value)
    }
  }
}
