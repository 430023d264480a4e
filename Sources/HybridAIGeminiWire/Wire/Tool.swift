import HybridAI

extension Gemini {
  /// A tool the model may use: declared functions, or one of the API's built-in tools (kept as
  /// data: `codeExecution`, `googleSearch`, `urlContext`, `googleMaps`, …).
  public struct Tool: Sendable, Hashable, Codable {
    /// Functions the model may call.
    public var functionDeclarations: [FunctionDeclaration]?
    /// Built-in tools and anything else, by member name, kept as data (e.g. `"googleSearch": {}`).
    public var otherTools: [String: JSONValue]

    /// A tool from declared functions and built-in tools.
    public init(functionDeclarations: [FunctionDeclaration]? = nil, otherTools: [String: JSONValue] = [:]) {
      self.functionDeclarations = functionDeclarations
      self.otherTools = otherTools
    }

    /// The code-execution tool.
    public static let codeExecution = Tool(otherTools: ["codeExecution": .object([:])])
    /// Grounding with Google Search.
    public static let googleSearch = Tool(otherTools: ["googleSearch": .object([:])])
    /// The URL-context tool.
    public static let urlContext = Tool(otherTools: ["urlContext": .object([:])])

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      functionDeclarations = try container.wire([FunctionDeclaration].self, "functionDeclarations")
      var others: [String: JSONValue] = [:]
      for key in container.allKeys
      where key.stringValue != "functionDeclarations" && key.stringValue != "function_declarations" {
        others[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
      }
      otherTools = others
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: AnyCodingKey.self)
      try container.encodeIfPresent(functionDeclarations, forKey: AnyCodingKey("functionDeclarations"))
      for (name, value) in otherTools.sorted(by: { $0.key < $1.key }) {
        try container.encode(value, forKey: AnyCodingKey(name))
      }
    }
  }

  /// A function the model may call.
  public struct FunctionDeclaration: Sendable, Hashable, Codable {
    /// The function's name.
    public var name: String
    /// What it does, for the model.
    public var description: String?
    /// The parameters in the API's OpenAPI schema subset.
    public var parameters: JSONValue?
    /// The parameters as JSON Schema (alternative to ``parameters``).
    public var parametersJsonSchema: JSONValue?
    /// The result's schema, when declared.
    public var response: JSONValue?
    /// The result's schema as JSON Schema.
    public var responseJsonSchema: JSONValue?
    /// `BLOCKING` (default) or `NON_BLOCKING`.
    public var behavior: String?

    /// A declaration from its fields.
    public init(name: String, description: String? = nil, parameters: JSONValue? = nil,
                parametersJsonSchema: JSONValue? = nil, response: JSONValue? = nil,
                responseJsonSchema: JSONValue? = nil, behavior: String? = nil) {
      self.name = name
      self.description = description
      self.parameters = parameters
      self.parametersJsonSchema = parametersJsonSchema
      self.response = response
      self.responseJsonSchema = responseJsonSchema
      self.behavior = behavior
    }

    private enum CodingKeys: String, CodingKey {
      case name, description, parameters, parametersJsonSchema, response, responseJsonSchema, behavior
    }

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: AnyCodingKey.self)
      self.init(name: try c.requiredWire(String.self, "name"), description: try c.wire(String.self, "description"),
                parameters: try c.wire(JSONValue.self, "parameters"),
                parametersJsonSchema: try c.wire(JSONValue.self, "parametersJsonSchema"),
                response: try c.wire(JSONValue.self, "response"),
                responseJsonSchema: try c.wire(JSONValue.self, "responseJsonSchema"),
                behavior: try c.wire(String.self, "behavior"))
    }
  }
}
