/// A tool as models see it: name, description and the schema of its arguments.
public struct ToolDefinition: Sendable, Hashable, Codable {
  public var name: String
  public var description: String
  /// The arguments' schema (an object schema).
  public var parameters: GenerationSchema

  public init(name: String, description: String, parameters: GenerationSchema) {
    self.name = name
    self.description = description
    self.parameters = parameters
  }
}
