extension GenerationSchema {
  /// Why this is not a well-formed JSON Schema, or `nil` when it is: a schema is an object or a
  /// boolean, and each keyword's value has the JSON type the keyword takes (`properties` an object
  /// of schemas, `required` an array of strings, `type` one of JSON Schema's type names…), all the
  /// way down. Keywords it does not know are left alone, as JSON Schema does.
  ///
  /// A schema from elsewhere (an MCP server's tool, a request) is checked with this before it is
  /// compiled or sent, so that a malformed one is refused by name rather than failing a turn.
  public var malformation: String? { Self.malformation(of: jsonSchema, at: "") }

  private static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "integer", "string"]
  private static let schemaKeywords = ["items", "additionalProperties", "not", "if", "then", "else", "contains",
                                       "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"]
  private static let schemaListKeywords = ["allOf", "anyOf", "oneOf", "prefixItems"]
  private static let schemaMapKeywords = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
  private static let numberKeywords = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                                       "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]
  private static let stringKeywords = ["pattern", "format", "$ref", "title", "description"]

  private static func malformation(of schema: JSONValue, at path: String) -> String? {
    let fields: [String: JSONValue]
    switch schema {
    case .bool: return nil
    case .object(let object): fields = object
    default: return "\(place(path)) is \(schema.typeName), not a schema (an object or a boolean)"
    }
    if let type = fields["type"] {
      let names: [JSONValue]
      if case .array(let list) = type { names = list } else { names = [type] }
      for name in names {
        guard case .string(let text) = name, typeNames.contains(text) else {
          return "\(place(path + "/type")) holds \(name.jsonString), which is not a JSON Schema type"
        }
      }
    }
    if let required = fields["required"] {
      guard case .array(let names) = required, names.allSatisfy({ if case .string = $0 { true } else { false } }) else {
        return "\(place(path + "/required")) is not an array of property names"
      }
    }
    if let values = fields["enum"], case .array = values {} else if let values = fields["enum"] {
      return "\(place(path + "/enum")) is \(values.typeName), not an array"
    }
    for keyword in numberKeywords {
      if let value = fields[keyword], case .number = value {} else if let value = fields[keyword] {
        return "\(place(path + "/" + keyword)) is \(value.typeName), not a number"
      }
    }
    for keyword in stringKeywords {
      if let value = fields[keyword], case .string = value {} else if let value = fields[keyword] {
        return "\(place(path + "/" + keyword)) is \(value.typeName), not a string"
      }
    }
    for keyword in schemaKeywords {
      guard let value = fields[keyword] else { continue }
      // `items` as an array of schemas is the older drafts' tuple form.
      if keyword == "items", case .array(let list) = value {
        for (index, item) in list.enumerated() {
          if let problem = malformation(of: item, at: "\(path)/items/\(index)") { return problem }
        }
      } else if let problem = malformation(of: value, at: path + "/" + keyword) {
        return problem
      }
    }
    for keyword in schemaListKeywords {
      guard let value = fields[keyword] else { continue }
      guard case .array(let list) = value else { return "\(place(path + "/" + keyword)) is \(value.typeName), not an array of schemas" }
      for (index, item) in list.enumerated() {
        if let problem = malformation(of: item, at: "\(path)/\(keyword)/\(index)") { return problem }
      }
    }
    for keyword in schemaMapKeywords {
      guard let value = fields[keyword] else { continue }
      guard case .object(let map) = value else { return "\(place(path + "/" + keyword)) is \(value.typeName), not an object of schemas" }
      for (name, item) in map.sorted(by: { $0.key < $1.key }) {
        if let problem = malformation(of: item, at: "\(path)/\(keyword)/\(name)") { return problem }
      }
    }
    return nil
  }

  private static func place(_ path: String) -> String { path.isEmpty ? "the schema" : "`\(path)`" }
}

extension JSONValue {
  /// The JSON type's name, with an article: "a string", "an array".
  var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}
