/// The shape a structured answer must have.
public struct ResponseFormat: Sendable, Hashable, Codable {
  /// The generated type's name, when there is one.
  public var name: String?
  /// The schema the answer follows.
  public var schema: GenerationSchema
  /// Whether a model should also describe the schema in the prompt (it is enforced either way;
  /// small models choose better values when they read it).
  public var includeSchemaInPrompt: Bool

  public init(name: String? = nil, schema: GenerationSchema, includeSchemaInPrompt: Bool = true) {
    self.name = name
    self.schema = schema
    self.includeSchemaInPrompt = includeSchemaInPrompt
  }

  /// The format of a `@Generable` type.
  public init<Content: Generable>(type: Content.Type, includeSchemaInPrompt: Bool = true) {
    self.init(name: String(describing: Content.self), schema: Content.generationSchema,
              includeSchemaInPrompt: includeSchemaInPrompt)
  }
}
