extension GeneratedContent {
  /// The content of a JSON value (object keys in sorted order, since `JSONValue` objects are unordered).
  public init(_ json: JSONValue) {
    switch json {
    case .null: self.init(kind: .null)
    case .bool(let value): self.init(kind: .bool(value))
    case .number(let value): self.init(kind: .number(value))
    case .string(let value): self.init(kind: .string(value))
    case .array(let values): self.init(kind: .array(values.map(GeneratedContent.init)))
    case .object(let members):
      self.init(kind: .structure(properties: members.mapValues(GeneratedContent.init), orderedKeys: members.keys.sorted()))
    }
  }

  /// The content as a JSON value.
  public var jsonValue: JSONValue {
    switch kind {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let value): .number(value)
    case .string(let value): .string(value)
    case .array(let values): .array(values.map(\.jsonValue))
    case .structure(let properties, _): .object(properties.mapValues(\.jsonValue))
    }
  }
}
