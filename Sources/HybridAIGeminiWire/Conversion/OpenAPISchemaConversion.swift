import HybridAI

extension GenerationSchema {
  /// The JSON Schema equivalent of a schema in the Gemini API's OpenAPI subset (`Schema`, used by
  /// `FunctionDeclaration.parameters` and `generationConfig.responseSchema`).
  ///
  /// | OpenAPI (Gemini) | JSON Schema |
  /// |---|---|
  /// | `type: STRING`, `INTEGER`, `OBJECT`, … (any case) | `type: "string"`, `"integer"`, `"object"`, … |
  /// | `nullable: true` | `anyOf: [the schema, {"type": "null"}]` |
  /// | `properties`, `required`, `propertyOrdering`, `items`, `anyOf` | the same, converted recursively; objects with properties get `additionalProperties: false` (Gemini generates no others) |
  /// | `enum`, `format` (but `enum` and the numeric `int32`/`int64`/`float`/`double`), `title`, `description`, `default` | the same |
  /// | `minimum`, `maximum`, `minItems`, `maxItems`, `minLength`, `maxLength`, `minProperties`, `maxProperties`, `pattern` | the same (64-bit counts may arrive as strings, as proto JSON writes them) |
  /// | `example` | left out |
  ///
  /// Members may be spelled in lowerCamelCase or snake_case (`property_ordering`, as the
  /// `google-genai` Python client sends them).
  ///
  /// - Throws: ``GeminiConversionError/invalidSchema(_:)`` for an unknown type or member, or a
  ///   member of the wrong kind; the message names the member's path.
  public init(geminiSchema schema: JSONValue) throws {
    self.init(jsonSchema: try OpenAPISchemaConverter.convert(schema, path: "schema"))
  }
}

/// Converts Gemini's OpenAPI-subset schemas to JSON Schema (see ``GenerationSchema/init(geminiSchema:)``).
enum OpenAPISchemaConverter {
  private static let types: [String: String] = [
    "STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
    "ARRAY": "array", "OBJECT": "object", "NULL": "null",
  ]
  private static let numericFormats: Set<String> = ["int32", "int64", "float", "double", "enum"]
  private static let counts = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]
  private static let bounds = ["minimum", "maximum"]
  private static let annotations = ["title", "description", "pattern"]

  static func convert(_ schema: JSONValue, path: String) throws -> JSONValue {
    guard case .object(let raw) = schema else {
      throw GeminiConversionError.invalidSchema("\(path) must be an object")
    }
    var members: [String: JSONValue] = [:]
    for (key, value) in raw { members[AnyCodingKey.camelCase(key)] = value }
    var result: [String: JSONValue] = [:]

    for (key, value) in members {
      let at = "\(path).\(key)"
      switch key {
      case "type":
        guard case .string(let name) = value else { throw GeminiConversionError.invalidSchema("\(at) must be a string") }
        let upper = name.uppercased()
        if upper == "TYPE_UNSPECIFIED" { continue }
        guard let type = types[upper] else {
          throw GeminiConversionError.invalidSchema("\(at): unknown type \(name)")
        }
        result["type"] = .string(type)
      case "nullable":
        guard case .bool = value else { throw GeminiConversionError.invalidSchema("\(at) must be true or false") }
      case "format":
        guard case .string(let format) = value else { throw GeminiConversionError.invalidSchema("\(at) must be a string") }
        if !numericFormats.contains(format) { result["format"] = value }
      case "enum", "required", "propertyOrdering":
        guard case .array(let items) = value, items.allSatisfy({ if case .string = $0 { true } else { false } }) else {
          throw GeminiConversionError.invalidSchema("\(at) must be an array of strings")
        }
        result[key] = value
      case "properties":
        guard case .object(let properties) = value else {
          throw GeminiConversionError.invalidSchema("\(at) must be an object")
        }
        var converted: [String: JSONValue] = [:]
        for (name, property) in properties { converted[name] = try convert(property, path: "\(at).\(name)") }
        result["properties"] = .object(converted)
      case "items":
        result["items"] = try convert(value, path: at)
      case "anyOf":
        guard case .array(let options) = value else { throw GeminiConversionError.invalidSchema("\(at) must be an array") }
        result["anyOf"] = .array(try options.enumerated().map { try convert($1, path: "\(at)[\($0)]") })
      case _ where counts.contains(key):
        result[key] = .number(Double(try integer(value, at: at)))
      case _ where bounds.contains(key):
        result[key] = .number(try number(value, at: at))
      case _ where annotations.contains(key):
        guard case .string = value else { throw GeminiConversionError.invalidSchema("\(at) must be a string") }
        result[key] = value
      case "default":
        result["default"] = value
      case "example":
        continue
      default:
        throw GeminiConversionError.invalidSchema("\(at) is not a field of the Gemini Schema")
      }
    }

    if result["type"] == .string("object"), case .object(let properties)? = result["properties"], !properties.isEmpty {
      result["additionalProperties"] = .bool(false)
    }
    if members["nullable"] == .bool(true) {
      return .object(["anyOf": .array([.object(result), .object(["type": .string("null")])])])
    }
    return .object(result)
  }

  private static func integer(_ value: JSONValue, at path: String) throws -> Int {
    switch value {
    case .number(let number) where number.rounded() == number && number >= 0: return Int(number)
    case .string(let text): if let count = Int(text), count >= 0 { return count }
    default: break
    }
    throw GeminiConversionError.invalidSchema("\(path) must be a non-negative integer")
  }

  private static func number(_ value: JSONValue, at path: String) throws -> Double {
    switch value {
    case .number(let number): return number
    case .string(let text): if let number = Double(text) { return number }
    default: break
    }
    throw GeminiConversionError.invalidSchema("\(path) must be a number")
  }
}
