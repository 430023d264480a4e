import Foundation

extension Gemini {
  /// The JSON coders for the wire types: no escaped slashes, compact output (one line, so a body
  /// fits in one server-sent event's `data:` line), keys sorted (a tool's schema and a call's
  /// arguments are Swift dictionaries, whose order differs between instances: sorted, the same
  /// request is the same bytes every time).
  public enum JSON {
    /// An encoder for wire types.
    public static func encoder() -> JSONEncoder {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
      return encoder
    }

    /// A decoder for wire types.
    public static func decoder() -> JSONDecoder {
      JSONDecoder()
    }

    /// Encodes a wire value as compact JSON.
    public static func encode(_ value: some Encodable) throws -> Data {
      try encoder().encode(value)
    }

    /// Decodes a wire value from JSON.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
      try decoder().decode(type, from: data)
    }
  }
}

/// A coding key for any member name, used where a wire type keeps members it does not know.
struct AnyCodingKey: CodingKey, Hashable {
  var stringValue: String
  var intValue: Int? { nil }

  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { return nil }
}
