import HybridAI

extension SchemaGrammarTranslator {
  // MARK: Objects

  /// Objects. With `properties` (or `required`), exactly the listed properties in a fixed order
  /// (`propertyOrdering`, else `required` order then the rest by name); optional ones may be
  /// left out. Extra properties are never generated, whatever `additionalProperties` says
  /// (leaving them out is always valid). Without either, any object, or a map whose values
  /// follow a schema-valued `additionalProperties`.
  mutating func objectExpression(
    _ schema: [String: JSONValue], at path: String, hint: String
  ) throws(SchemaGrammarError) -> GrammarExpression {
    var properties: [String: JSONValue]?
    switch schema["properties"] {
    case nil: properties = nil
    case .object(let members)?: properties = members
    default: throw .invalidSchema(path: path, reason: "'properties' must be an object")
    }
    let required = try Self.names(schema, "required", at: path) ?? []
    let additional = schema["additionalProperties"]
    switch additional {
    case nil, .bool?, .object?: break
    default: throw .invalidSchema(path: path, reason: "'additionalProperties' must be a boolean or a schema")
    }
    let ws = whitespaceExpression
    let open = GrammarExpression.sequence(.literal("{"), ws)

    if properties == nil, required.isEmpty {
      switch additional {
      case .bool(false)?:
        return .sequence(open, .literal("}"))
      case .object?:
        let value = try expression(for: additional!, at: Self.pointer(path, "additionalProperties"), hint: "\(hint)-value")
        let member = GrammarExpression.sequence(shared(.string), colon, value)
        let more = GrammarExpression.repeated(.sequence(comma, member), min: 0, max: nil)
        return .sequence(open, .optional(.sequence(member, more, ws)), .literal("}"))
      default:
        return shared(.object)
      }
    }

    // The listed properties and their schemas; required names not listed take the schema of
    // `additionalProperties`.
    var schemas = properties ?? [:]
    for name in required where schemas[name] == nil {
      switch additional {
      case .bool(false)?:
        throw .invalidSchema(path: path, reason: "the required property '\(name)' is not in 'properties' and 'additionalProperties' is false")
      case .object?:
        schemas[name] = additional!
      default:
        schemas[name] = .bool(true)
      }
    }
    let order = try propertyOrder(schema, names: Set(schemas.keys), required: required, at: path)
    let requiredSet = Set(required)

    var members: [(expression: GrammarExpression, isRequired: Bool)] = []
    for name in order {
      let valuePath = properties?[name] != nil ? Self.pointer(path, "properties", name) : Self.pointer(path, "additionalProperties")
      var value = try expression(for: schemas[name]!, at: valuePath, hint: name)
      if !Self.isAtomic(value) {
        value = .rule(rules.ruleName(for: value, base: "\(hint)-\(name)"))
      }
      members.append((.sequence(.literal(JSONValue.string(name).jsonString), colon, value), requiredSet.contains(name)))
    }
    guard !members.isEmpty else { return .sequence(open, .literal("}")) }
    let close = GrammarExpression.sequence(ws, .literal("}"))
    if members.allSatisfy(\.isRequired) {
      var parts = [members[0].expression]
      for member in members.dropFirst() { parts += [comma, member.expression] }
      return .sequence(open, .sequence(parts), close)
    }

    // rest[i]: the members from i on once one has been written (each after a comma), as a
    // chain of rules. first: the first member written, then rest.
    var rest = [GrammarExpression](repeating: .empty, count: members.count + 1)
    for index in stride(from: members.count - 1, through: 1, by: -1) {
      let item = GrammarExpression.sequence(comma, members[index].expression)
      let body = GrammarExpression.sequence(members[index].isRequired ? item : .optional(item), rest[index + 1])
      rest[index] = .rule(rules.ruleName(for: body, base: "\(hint)-rest"))
    }
    let lastChoice = members.firstIndex(where: \.isRequired) ?? members.count - 1
    let first = GrammarExpression.choice((0...lastChoice).map { .sequence(members[$0].expression, rest[$0 + 1]) })
    if members.contains(where: \.isRequired) {
      return .sequence(open, first, close)
    }
    return .sequence(open, .optional(.sequence(first, ws)), .literal("}"))
  }

  /// Whether an expression is short enough to repeat inline instead of naming a rule.
  private static func isAtomic(_ expression: GrammarExpression) -> Bool {
    switch expression {
    case .rule, .characters: true
    case .literal(let text): text.count <= 24
    default: false
    }
  }

  private func propertyOrder(
    _ schema: [String: JSONValue], names: Set<String>, required: [String], at path: String
  ) throws(SchemaGrammarError) -> [String] {
    var order: [String] = []
    if let ordering = try Self.names(schema, "propertyOrdering", at: path) {
      for name in ordering {
        guard names.contains(name) else {
          throw .invalidSchema(path: path, reason: "'propertyOrdering' names '\(name)', which is not a property")
        }
        order.append(name)
      }
    }
    for name in required where !order.contains(name) { order.append(name) }
    for name in names.sorted() where !order.contains(name) { order.append(name) }
    return order
  }

  /// A keyword holding an array of distinct strings (`required`, `propertyOrdering`).
  private static func names(_ schema: [String: JSONValue], _ keyword: String, at path: String) throws(SchemaGrammarError) -> [String]? {
    guard let value = schema[keyword] else { return nil }
    guard case .array(let items) = value else {
      throw .invalidSchema(path: path, reason: "'\(keyword)' must be an array of strings")
    }
    var names: [String] = []
    for item in items {
      guard case .string(let name) = item else {
        throw .invalidSchema(path: path, reason: "'\(keyword)' must be an array of strings")
      }
      if !names.contains(name) { names.append(name) }
    }
    return names
  }

  // MARK: Arrays

  /// Arrays: `prefixItems` for the first elements, `items` for the rest (`false`: no more),
  /// and exactly `minItems`...`maxItems` elements.
  mutating func arrayExpression(
    _ schema: [String: JSONValue], at path: String, hint: String
  ) throws(SchemaGrammarError) -> GrammarExpression {
    var prefix: [GrammarExpression] = []
    switch schema["prefixItems"] {
    case nil: break
    case .array(let schemas)?:
      for (index, item) in schemas.enumerated() {
        let element = try expression(for: item, at: Self.pointer(path, "prefixItems", String(index)), hint: "\(hint)-\(index)")
        prefix.append(Self.isAtomic(element) ? element : .rule(rules.ruleName(for: element, base: "\(hint)-\(index)")))
      }
    default:
      throw .invalidSchema(path: path, reason: "'prefixItems' must be an array of schemas")
    }
    var items: GrammarExpression?
    var itemsAreAnyValue = false
    switch schema["items"] {
    case nil, .bool(true)?:
      itemsAreAnyValue = true
      if prefix.isEmpty, schema["minItems"] == nil, schema["maxItems"] == nil { return shared(.array) }
      items = shared(.value)
    case .bool(false)?:
      items = nil
    case .object?:
      let element = try expression(for: schema["items"]!, at: Self.pointer(path, "items"), hint: "\(hint)-item")
      items = Self.isAtomic(element) ? element : .rule(rules.ruleName(for: element, base: "\(hint)-item"))
    case .array?:
      throw .unsupportedValue(keyword: "items", path: path, reason: "an array of schemas (the draft-4 tuple form) is not supported; use 'prefixItems'")
    default:
      throw .invalidSchema(path: path, reason: "'items' must be a schema")
    }
    let minimum = try Self.count(schema, "minItems", at: path) ?? 0
    var maximum = try Self.count(schema, "maxItems", at: path)
    if items == nil { maximum = min(maximum ?? prefix.count, prefix.count) }
    if let maximum, minimum > maximum {
      throw .invalidSchema(path: path, reason: items == nil && minimum > prefix.count
        ? "'minItems' (\(minimum)) needs more elements than 'prefixItems' allows with 'items': false"
        : "'minItems' (\(minimum)) is greater than 'maxItems' (\(maximum))")
    }
    if prefix.isEmpty, itemsAreAnyValue, minimum == 0, maximum == nil { return shared(.array) }

    let ws = whitespaceExpression
    let open = GrammarExpression.sequence(.literal("["), ws)
    let close = GrammarExpression.literal("]")
    if maximum == 0 { return .sequence(open, close) }
    let separator = comma

    // The elements from `index` on, when `index` elements have been written.
    func tail(from index: Int) -> GrammarExpression {
      if let maximum, index >= maximum { return .empty }
      if index < prefix.count {
        let next = GrammarExpression.sequence(separator, prefix[index], tail(from: index + 1))
        return index < minimum ? next : .optional(next)
      }
      guard let items else { return .empty }
      return .repeated(.sequence(separator, items), min: max(0, minimum - index), max: maximum.map { $0 - index })
    }
    let elements = GrammarExpression.sequence(prefix.first ?? items!, tail(from: 1))
    if minimum == 0 {
      return .sequence(open, .optional(.sequence(elements, ws)), close)
    }
    return .sequence(open, elements, ws, close)
  }
}
