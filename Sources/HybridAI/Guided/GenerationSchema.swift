import Foundation

/// The shape of a value a model should generate, as a JSON Schema.
///
/// `@Generable` types build theirs; a schema can also come from JSON Schema text (for example a
/// file given to `hybrid generate --schema`). On-device models compile it into a grammar that
/// makes every answer valid; cloud models receive it as `responseJsonSchema`.
///
/// Object schemas carry `propertyOrdering` (the order properties are generated in) and
/// `additionalProperties: false`. Mutually recursive types refer to each other through `$defs`
/// at the schema's top.
public struct GenerationSchema: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The schema as JSON Schema (draft 2020-12 keywords).
  public let jsonSchema: JSONValue

  /// A schema from its JSON Schema form.
  public init(jsonSchema: JSONValue) {
    self.jsonSchema = jsonSchema
  }

  /// A schema from JSON Schema text. Throws when the text is not a JSON object or boolean.
  public init(jsonSchemaText text: String) throws(GeneratedContentError) {
    let value: JSONValue
    do { value = try JSONValue(jsonString: text) } catch {
      throw .invalidJSON(text, reason: "not valid JSON")
    }
    switch value {
    case .object, .bool: self.init(jsonSchema: value)
    default: throw .invalidJSON(text, reason: "a JSON Schema is an object (or true/false)")
    }
  }

  public init(from decoder: any Decoder) throws {
    jsonSchema = try JSONValue(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try jsonSchema.encode(to: encoder)
  }

  public var description: String { jsonSchema.jsonString }

  // MARK: - Building schemas

  /// An object with these properties, generated in this order.
  public static func object(name: String? = nil, description: String? = nil, properties: [Property]) -> GenerationSchema {
    composing(properties.map(\.schema)) { bodies in
      var members: [String: JSONValue] = [:]
      for (property, body) in zip(properties, bodies) { members[property.name] = body }
      var schema: [String: JSONValue] = [
        "type": "object",
        "properties": .object(members),
        "required": .array(properties.filter { !$0.isOptional }.map { .string($0.name) }),
        "propertyOrdering": .array(properties.map { .string($0.name) }),
        "additionalProperties": false,
      ]
      if let name { schema["title"] = .string(name) }
      if let description { schema["description"] = .string(description) }
      return .object(schema)
    }
  }

  /// A string that is one of `choices` (an enum with plain cases).
  public static func anyOf(name: String? = nil, description: String? = nil, choices: [String]) -> GenerationSchema {
    var schema: [String: JSONValue] = ["type": "string", "enum": .array(choices.map { .string($0) })]
    if let name { schema["title"] = .string(name) }
    if let description { schema["description"] = .string(description) }
    return GenerationSchema(jsonSchema: .object(schema))
  }

  /// A value that matches one of `schemas` (an enum whose cases carry values).
  public static func anyOf(name: String? = nil, description: String? = nil, schemas: [GenerationSchema]) -> GenerationSchema {
    composing(schemas) { bodies in
      var schema: [String: JSONValue] = ["anyOf": .array(bodies)]
      if let name { schema["title"] = .string(name) }
      if let description { schema["description"] = .string(description) }
      return .object(schema)
    }
  }

  /// This schema with a description (replacing any it had).
  public func described(_ description: String?) -> GenerationSchema {
    guard let description, case .object(var schema) = jsonSchema else { return self }
    schema["description"] = .string(description)
    return GenerationSchema(jsonSchema: .object(schema))
  }

  /// This schema narrowed by guides.
  public func guided<Value>(by guides: [GenerationGuide<Value>]) -> GenerationSchema {
    var schema = jsonSchema
    for guide in guides { schema = guide.constraint.apply(to: schema) }
    return GenerationSchema(jsonSchema: schema)
  }
}

extension GenerationSchema {
  /// One property of an object schema.
  public struct Property: Sendable, Hashable {
    /// The JSON property name.
    public let name: String
    /// What the property holds, for the model.
    public let description: String?
    /// The property's schema, guides and description applied.
    public let schema: GenerationSchema
    /// Whether the model may leave the property out.
    public let isOptional: Bool

    /// A property holding a `Value` (for an optional Swift property pass the wrapped type and
    /// `isOptional: true`), narrowed by `guides`.
    public init<Value: Generable>(name: String, description: String? = nil, type: Value.Type,
                                  isOptional: Bool = false, guides: [GenerationGuide<Value>] = []) {
      self.init(name: name, description: description,
                schema: SchemaRecursion.schema(of: Value.self).guided(by: guides), isOptional: isOptional)
    }

    /// A property with an explicit schema.
    public init(name: String, description: String? = nil, schema: GenerationSchema, isOptional: Bool = false) {
      self.name = name
      self.description = description
      self.schema = description.map { schema.described($0) } ?? schema
      self.isOptional = isOptional
    }
  }
}
