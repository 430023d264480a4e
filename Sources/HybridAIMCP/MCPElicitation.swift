import HybridAI
import MCP

/// A server's request for the user's input (MCP's `elicitation/create`), as an app's handler gets it.
public struct MCPElicitationRequest: Sendable, Hashable {
  /// The configured name of the server that asks.
  public let server: String
  /// What the server says to the user.
  public let message: String
  /// Form mode: the fields asked for, a JSON Schema of an object (`properties`, `required`); `nil`
  /// when the server sends the user to ``url`` instead.
  public let requestedSchema: JSONValue?
  /// URL mode: the page the user is asked to open.
  public let url: String?
}

/// The user's answer to an ``MCPElicitationRequest``.
public enum MCPElicitationAnswer: Sendable, Hashable {
  /// The user gave these fields (form mode; empty for a URL the user opened).
  case accept([String: JSONValue])
  /// The user said no.
  case decline
  /// The user dismissed the request without choosing.
  case cancel
}

/// Answers servers' requests for the user's input; without one, every request is declined.
public typealias MCPElicitationHandler = @Sendable (MCPElicitationRequest) async -> MCPElicitationAnswer

extension MCPElicitationRequest {
  init(server: String, _ parameters: CreateElicitation.Parameters) {
    self.server = server
    switch parameters {
    case .form(let form):
      message = form.message
      var schema: [String: JSONValue] = [
        "type": .string(form.requestedSchema.type.rawValue),
        "properties": .object(form.requestedSchema.properties.mapValues(MCPValueConversion.jsonValue)),
      ]
      if let required = form.requestedSchema.required { schema["required"] = .array(required.map(JSONValue.string)) }
      if let title = form.requestedSchema.title { schema["title"] = .string(title) }
      if let description = form.requestedSchema.description { schema["description"] = .string(description) }
      requestedSchema = .object(schema)
      url = nil
    case .url(let request):
      message = request.message
      requestedSchema = nil
      url = request.url
    }
  }
}

extension MCPElicitationAnswer {
  /// The answer in MCP's terms.
  var result: CreateElicitation.Result {
    switch self {
    case .accept(let fields): CreateElicitation.Result(action: .accept, content: fields.mapValues(MCPValueConversion.value))
    case .decline: CreateElicitation.Result(action: .decline)
    case .cancel: CreateElicitation.Result(action: .cancel)
    }
  }
}
