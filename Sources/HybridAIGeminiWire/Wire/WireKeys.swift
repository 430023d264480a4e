extension AnyCodingKey {
  /// The proto field name of a lowerCamelCase JSON member name: `maxOutputTokens` → `max_output_tokens`.
  static func snakeCase(_ name: String) -> String {
    var result = ""
    result.reserveCapacity(name.count + 4)
    for character in name {
      if character.isUppercase {
        result.append("_")
        result.append(contentsOf: character.lowercased())
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// The lowerCamelCase JSON member name of a proto field name: `property_ordering` → `propertyOrdering`.
  static func camelCase(_ name: String) -> String {
    guard name.contains("_") else { return name }
    let pieces = name.split(separator: "_", omittingEmptySubsequences: true)
    guard let first = pieces.first else { return name }
    return String(first) + pieces.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
  }
}

extension KeyedDecodingContainer where Key == AnyCodingKey {
  /// The member `name`, written in lowerCamelCase or in its proto snake_case form (the API
  /// accepts both in requests, as every proto3 JSON parser does), or `nil` when absent or `null`.
  func wire<Value: Decodable>(_ type: Value.Type, _ name: String) throws -> Value? {
    let camel = AnyCodingKey(name)
    if contains(camel) { return try decodeIfPresent(type, forKey: camel) }
    let snake = AnyCodingKey(AnyCodingKey.snakeCase(name))
    if snake != camel, contains(snake) { return try decodeIfPresent(type, forKey: snake) }
    return nil
  }

  /// Like ``wire(_:_:)`` for a required member: throws `keyNotFound` when it is absent.
  func requiredWire<Value: Decodable>(_ type: Value.Type, _ name: String) throws -> Value {
    guard let value = try wire(type, name) else {
      throw DecodingError.keyNotFound(AnyCodingKey(name), DecodingError.Context(
        codingPath: codingPath, debugDescription: "missing required member \(name)"))
    }
    return value
  }
}
