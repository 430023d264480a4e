import HybridAI

/// A Chat Completions request (`POST /chat/completions`), the OpenAI API that most self-hosted
/// servers (llama-server, vLLM, Ollama) and Google's own `/v1beta/openai/` speak. Only the fields
/// HybridAI acts on are kept; unknown fields are ignored, as OpenAI's servers do.
public struct ChatCompletionRequest: Sendable, Hashable, Codable {
  public var model: String
  public var messages: [ChatMessage]
  public var stream: Bool?
  public var streamOptions: StreamOptions?
  public var tools: [ChatTool]?
  public var toolChoice: ChatToolChoice?
  public var responseFormat: ChatResponseFormat?
  /// The older name of ``maxCompletionTokens``.
  public var maxTokens: Int?
  public var maxCompletionTokens: Int?
  public var temperature: Double?
  public var topP: Double?
  public var seed: Int64?
  /// `-2…2`: lowers a token's score by this times its count in the answer so far.
  public var frequencyPenalty: Double?
  /// `-2…2`: lowers the score of every token already in the answer by this.
  public var presencePenalty: Double?
  public var stop: ChatStop?
  /// How many choices: only 1 is served.
  public var n: Int?
  /// `false`: at most one tool call in the answer.
  public var parallelToolCalls: Bool?
  /// Log probabilities of the answer's tokens: not served (`true` is refused).
  public var logprobs: Bool?
  /// How many alternatives' log probabilities a token gets: not served (set, it is refused).
  public var topLogprobs: Int?

  public init(model: String, messages: [ChatMessage], stream: Bool? = nil, streamOptions: StreamOptions? = nil,
              tools: [ChatTool]? = nil, toolChoice: ChatToolChoice? = nil, responseFormat: ChatResponseFormat? = nil,
              maxTokens: Int? = nil, maxCompletionTokens: Int? = nil, temperature: Double? = nil, topP: Double? = nil,
              seed: Int64? = nil, frequencyPenalty: Double? = nil, presencePenalty: Double? = nil,
              stop: ChatStop? = nil, n: Int? = nil) {
    self.frequencyPenalty = frequencyPenalty
    self.presencePenalty = presencePenalty
    self.model = model
    self.messages = messages
    self.stream = stream
    self.streamOptions = streamOptions
    self.tools = tools
    self.toolChoice = toolChoice
    self.responseFormat = responseFormat
    self.maxTokens = maxTokens
    self.maxCompletionTokens = maxCompletionTokens
    self.temperature = temperature
    self.topP = topP
    self.seed = seed
    self.stop = stop
    self.n = n
  }

  enum CodingKeys: String, CodingKey {
    case model, messages, stream, tools, temperature, seed, stop, n, logprobs
    case parallelToolCalls = "parallel_tool_calls", topLogprobs = "top_logprobs"
    case streamOptions = "stream_options", toolChoice = "tool_choice", responseFormat = "response_format"
    case maxTokens = "max_tokens", maxCompletionTokens = "max_completion_tokens", topP = "top_p"
    case frequencyPenalty = "frequency_penalty", presencePenalty = "presence_penalty"
  }

  /// `stream_options`.
  public struct StreamOptions: Sendable, Hashable, Codable {
    /// Send a last chunk with the usage (and no choices).
    public var includeUsage: Bool?

    public init(includeUsage: Bool? = nil) { self.includeUsage = includeUsage }

    enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
  }
}

/// `stop`: one sequence or several.
public struct ChatStop: Sendable, Hashable, Codable {
  public var sequences: [String]

  public init(_ sequences: [String]) { self.sequences = sequences }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let one = try? container.decode(String.self) {
      sequences = [one]
    } else {
      sequences = try container.decode([String].self)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(sequences)
  }
}

/// A function the model may call: `{"type": "function", "function": {...}}`.
public struct ChatTool: Sendable, Hashable, Codable {
  public var type: String
  public var function: FunctionDefinition

  public init(function: FunctionDefinition) {
    self.type = "function"
    self.function = function
  }

  /// A function's name, description and parameters (a JSON Schema).
  public struct FunctionDefinition: Sendable, Hashable, Codable {
    public var name: String
    public var description: String?
    public var parameters: JSONValue?
    public var strict: Bool?

    public init(name: String, description: String? = nil, parameters: JSONValue? = nil, strict: Bool? = nil) {
      self.name = name
      self.description = description
      self.parameters = parameters
      self.strict = strict
    }
  }
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"`, or one named function.
public enum ChatToolChoice: Sendable, Hashable, Codable {
  case none
  case auto
  case required
  case function(name: String)

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let word = try? container.decode(String.self) {
      switch word {
      case "none": self = .none
      case "auto": self = .auto
      case "required": self = .required
      default:
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "tool_choice \(word) is not none, auto or required")
      }
      return
    }
    struct Named: Decodable {
      struct Function: Decodable { let name: String }
      let type: String
      let function: Function
    }
    let named = try container.decode(Named.self)
    guard named.type == "function" else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "tool_choice type \(named.type) is not function")
    }
    self = .function(name: named.function.name)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .none: try container.encode("none")
    case .auto: try container.encode("auto")
    case .required: try container.encode("required")
    case .function(let name):
      try container.encode(JSONValue.object(["type": "function", "function": .object(["name": .string(name)])]))
    }
  }
}

/// `response_format`: free text, any JSON object, or JSON valid against a schema.
public enum ChatResponseFormat: Sendable, Hashable, Codable {
  case text
  case jsonObject
  case jsonSchema(name: String, schema: JSONValue?, strict: Bool?)

  private struct Wire: Codable {
    struct Schema: Codable {
      var name: String
      var schema: JSONValue?
      var strict: Bool?
    }
    var type: String
    var jsonSchema: Schema?

    enum CodingKeys: String, CodingKey { case type, jsonSchema = "json_schema" }
  }

  public init(from decoder: any Decoder) throws {
    let wire = try Wire(from: decoder)
    switch wire.type {
    case "text": self = .text
    case "json_object": self = .jsonObject
    case "json_schema":
      guard let schema = wire.jsonSchema else {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                debugDescription: "response_format json_schema needs a json_schema object"))
      }
      self = .jsonSchema(name: schema.name, schema: schema.schema, strict: schema.strict)
    case let other:
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                              debugDescription: "response_format type \(other) is not text, json_object or json_schema"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .text: try Wire(type: "text").encode(to: encoder)
    case .jsonObject: try Wire(type: "json_object").encode(to: encoder)
    case .jsonSchema(let name, let schema, let strict):
      try Wire(type: "json_schema", jsonSchema: .init(name: name, schema: schema, strict: strict)).encode(to: encoder)
    }
  }
}
