/// A structured value a model generated: JSON-shaped, possibly still growing.
///
/// Generated types (``Generable``) decode from it; the session builds it from the model's JSON
/// text, and while a response streams, from the JSON received so far (``isComplete`` is `false`
/// for values that may still grow).
///
/// ```swift
/// let content = try GeneratedContent(json: #"{"name": "Ada", "age": 36}"#)
/// let name: String = try content.value(forProperty: "name")
/// ```
public struct GeneratedContent: Sendable, Hashable, CustomStringConvertible {
  /// The shape of a value.
  public enum Kind: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([GeneratedContent])
    /// An object; `orderedKeys` keeps the order the properties were generated in.
    case structure(properties: [String: GeneratedContent], orderedKeys: [String])
  }

  /// The value.
  public var kind: Kind
  /// `false` while the value may still grow (a string, array or object whose end has not been generated).
  public var isComplete: Bool

  public init(kind: Kind, isComplete: Bool = true) {
    self.kind = kind
    self.isComplete = isComplete
  }

  /// Parses complete JSON text. Throws ``GeneratedContentError/invalidJSON(_:reason:)`` otherwise.
  public init(json: String) throws(GeneratedContentError) {
    var parser = GeneratedJSONParser(text: json, allowsPartial: false)
    self = try parser.parseDocument()
  }

  /// Parses the beginning of JSON text, as far as it goes: open strings, arrays and objects are
  /// closed and marked incomplete; a number or literal that may still grow is left out.
  /// Returns `nil` when the text has no value yet or is not the beginning of JSON.
  public init?(partialJSON: String) {
    var parser = GeneratedJSONParser(text: partialJSON, allowsPartial: true)
    guard let parsed = try? parser.parseDocument() else { return nil }
    self = parsed
  }

  /// An object with these properties, in this order.
  public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>) {
    var members: [String: GeneratedContent] = [:]
    var order: [String] = []
    for (key, value) in properties {
      let content = value.generatedContent
      if case .null = content.kind { continue }   // absent optionals are left out
      if members.updateValue(content, forKey: key) == nil { order.append(key) }
    }
    self.init(kind: .structure(properties: members, orderedKeys: order))
  }

  /// The value of a ``ConvertibleToGeneratedContent`` value.
  public init(_ value: some ConvertibleToGeneratedContent) {
    self = value.generatedContent
  }

  /// Compact JSON text for the value (object properties in their generated order).
  public var jsonString: String {
    var output = ""
    GeneratedJSONWriter.write(self, to: &output)
    return output
  }

  public var description: String { jsonString }

  /// This value as `type`.
  public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self) throws -> Value {
    try Value(self)
  }

  /// The property `name` of an object, as `type`. A missing property decodes as `nil` when `Value`
  /// is optional, and throws ``GeneratedContentError/missingProperty(_:)`` otherwise.
  public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self, forProperty name: String) throws -> Value {
    guard case .structure(let properties, _) = kind else {
      throw GeneratedContentError.typeMismatch(expected: "an object", found: self)
    }
    guard let member = properties[name] else {
      if let optional = Value.self as? any OptionalGeneratedContent.Type {
        return optional.absent as! Value
      }
      throw GeneratedContentError.missingProperty(name)
    }
    do {
      return try Value(member)
    } catch let error as GeneratedContentError {
      throw error.inProperty(name)
    }
  }

  /// The property names of an object, in generated order (empty for other values).
  public var propertyNames: [String] {
    if case .structure(_, let order) = kind { return order }
    return []
  }
}

/// Why generated content could not be read or converted.
public enum GeneratedContentError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text is not valid JSON.
  case invalidJSON(String, reason: String)
  /// The value has another type than the one asked for.
  case typeMismatch(expected: String, found: GeneratedContent)
  /// A required property is missing.
  case missingProperty(String)
  /// A value is outside what the type accepts (an unknown enum case, a fractional integer, …).
  case invalidValue(GeneratedContent, reason: String)
  /// An error inside a property, with the property's path.
  indirect case inProperty(String, GeneratedContentError)

  func inProperty(_ name: String) -> GeneratedContentError { .inProperty(name, self) }

  public var description: String {
    switch self {
    case .invalidJSON(let text, let reason):
      "invalid JSON (\(reason)): \(text.count > 200 ? String(text.prefix(200)) + "…" : text)"
    case .typeMismatch(let expected, let found): "expected \(expected), found \(found.jsonString)"
    case .missingProperty(let name): "the required property \"\(name)\" is missing"
    case .invalidValue(let value, let reason): "\(value.jsonString) is not valid: \(reason)"
    case .inProperty(let name, let error): "\(name): \(error)"
    }
  }
}
