import Foundation

/// A JSON parser that can also read the beginning of a JSON text (a response still streaming).
///
/// In partial mode the end of the text is not an error: an open string, array or object ends
/// there (marked incomplete), and a number or literal that may still grow is left out.
struct GeneratedJSONParser {
  private let bytes: [UInt8]
  private let text: String
  private let allowsPartial: Bool
  private var position = 0

  /// Thrown internally when the text ends in the middle of a value, in partial mode.
  private struct EndOfText: Error {}

  init(text: String, allowsPartial: Bool) {
    self.text = text
    self.bytes = Array(text.utf8)
    self.allowsPartial = allowsPartial
  }

  mutating func parseDocument() throws(GeneratedContentError) -> GeneratedContent {
    do {
      skipWhitespace()
      guard let value = try parseValue() else { throw invalid("no value") }
      skipWhitespace()
      if position < bytes.count { throw invalid("unexpected text after the value at byte \(position)") }
      return value
    } catch let error as GeneratedContentError {
      throw error
    } catch {
      throw invalid("the text ends in the middle of a value")
    }
  }

  // MARK: - Values

  /// The next value; `nil` in partial mode when the text ends before the value can be used.
  private mutating func parseValue() throws -> GeneratedContent? {
    guard let byte = peek() else {
      if allowsPartial { return nil }
      throw invalid("the text ends where a value should start")
    }
    switch byte {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""):
      let (string, complete) = try parseString()
      return GeneratedContent(kind: .string(string), isComplete: complete)
    case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
    case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
    case UInt8(ascii: "n"): return try parseLiteral("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw invalid("unexpected character at byte \(position)")
    }
  }

  private mutating func parseObject() throws -> GeneratedContent {
    position += 1
    var properties: [String: GeneratedContent] = [:]
    var order: [String] = []
    func partial() -> GeneratedContent {
      GeneratedContent(kind: .structure(properties: properties, orderedKeys: order), isComplete: false)
    }
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      return GeneratedContent(kind: .structure(properties: [:], orderedKeys: []))
    }
    while true {
      skipWhitespace()
      guard let byte = peek() else { return try endOfText(partial()) }
      guard byte == UInt8(ascii: "\"") else { throw invalid("expected a property name at byte \(position)") }
      let (key, keyComplete) = try parseString()
      guard keyComplete else { return try endOfText(partial()) }
      skipWhitespace()
      guard let colon = peek() else { return try endOfText(partial()) }
      guard colon == UInt8(ascii: ":") else { throw invalid("expected ':' at byte \(position)") }
      position += 1
      skipWhitespace()
      guard let value = try parseValue() else { return try endOfText(partial()) }
      if properties.updateValue(value, forKey: key) == nil { order.append(key) }
      if !value.isComplete { return partial() }
      skipWhitespace()
      guard let next = peek() else { return try endOfText(partial()) }
      position += 1
      if next == UInt8(ascii: "}") {
        return GeneratedContent(kind: .structure(properties: properties, orderedKeys: order))
      }
      guard next == UInt8(ascii: ",") else { throw invalid("expected ',' or '}' at byte \(position - 1)") }
    }
  }

  private mutating func parseArray() throws -> GeneratedContent {
    position += 1
    var elements: [GeneratedContent] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      return GeneratedContent(kind: .array([]))
    }
    while true {
      skipWhitespace()
      guard let value = try parseValue() else {
        return try endOfText(GeneratedContent(kind: .array(elements), isComplete: false))
      }
      elements.append(value)
      if !value.isComplete { return GeneratedContent(kind: .array(elements), isComplete: false) }
      skipWhitespace()
      guard let next = peek() else {
        return try endOfText(GeneratedContent(kind: .array(elements), isComplete: false))
      }
      position += 1
      if next == UInt8(ascii: "]") { return GeneratedContent(kind: .array(elements)) }
      guard next == UInt8(ascii: ",") else { throw invalid("expected ',' or ']' at byte \(position - 1)") }
    }
  }

  /// A string and whether its closing quote was seen.
  private mutating func parseString() throws -> (String, Bool) {
    position += 1
    var scalars: [UInt8] = []
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return (String(decoding: scalars, as: UTF8.self), true)
      case UInt8(ascii: "\\"):
        guard position + 1 < bytes.count else { position = bytes.count; break }
        let escaped = bytes[position + 1]
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          guard let scalar = try parseUnicodeEscape() else { position = bytes.count; continue }
          scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
          continue
        default: throw invalid("invalid escape at byte \(position)")
        }
        position += 2
      case 0x00..<0x20:
        throw invalid("control character inside a string at byte \(position)")
      default:
        scalars.append(byte)
        position += 1
      }
    }
    if allowsPartial { return (String(decoding: scalars, as: UTF8.self), false) }
    throw invalid("unterminated string")
  }

  /// Reads `\uXXXX` (and a following low surrogate); `nil` when the text ends inside it.
  private mutating func parseUnicodeEscape() throws -> Unicode.Scalar? {
    guard let high = try hexQuad(at: position + 2) else { return nil }
    position += 6
    if (0xD800..<0xDC00).contains(high) {
      guard position + 1 < bytes.count else { return nil }
      guard bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
        throw invalid("unpaired surrogate at byte \(position)")
      }
      guard let low = try hexQuad(at: position + 2) else { return nil }
      guard (0xDC00..<0xE000).contains(low) else { throw invalid("unpaired surrogate at byte \(position)") }
      position += 6
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }
    guard let scalar = Unicode.Scalar(high) else { throw invalid("invalid \\u escape at byte \(position - 6)") }
    return scalar
  }

  private func hexQuad(at start: Int) throws -> UInt32? {
    guard start + 4 <= bytes.count else {
      guard allowsPartial else { throw invalid("unterminated \\u escape") }
      // The escape may still be completed, unless what there is of it is already not hex.
      if bytes[start...].contains(where: { Self.hexDigitValue($0) == nil }) {
        throw invalid("invalid \\u escape at byte \(start - 2)")
      }
      return nil
    }
    // Four hex digits exactly: `UInt32(_:radix:)` alone would also take a sign ("+123").
    var value: UInt32 = 0
    for byte in bytes[start..<start + 4] {
      guard let digit = Self.hexDigitValue(byte) else { throw invalid("invalid \\u escape at byte \(start - 2)") }
      value = value << 4 | digit
    }
    return value
  }

  private mutating func parseNumber() throws -> GeneratedContent? {
    let start = position
    while position < bytes.count, Self.isNumberByte(bytes[position]) { position += 1 }
    // A number at the very end may still grow ("1" → "12"): leave it out of a partial value.
    if position == bytes.count, allowsPartial { return nil }
    let literal = String(decoding: bytes[start..<position], as: UTF8.self)
    guard Self.isJSONNumber(literal), let value = Double(literal) else {
      throw invalid("invalid number \"\(literal)\" at byte \(start)")
    }
    return GeneratedContent(kind: .number(value))
  }

  private mutating func parseLiteral(_ word: String, _ kind: GeneratedContent.Kind) throws -> GeneratedContent? {
    let expected = Array(word.utf8)
    let available = min(expected.count, bytes.count - position)
    guard Array(bytes[position..<position + available]) == Array(expected.prefix(available)) else {
      throw invalid("unexpected text at byte \(position)")
    }
    guard available == expected.count else {
      if allowsPartial { position = bytes.count; return nil }
      throw invalid("the text ends inside \(word)")
    }
    position += expected.count
    return GeneratedContent(kind: kind)
  }

  // MARK: - Helpers

  private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

  private mutating func skipWhitespace() {
    while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
  }

  /// In partial mode, returns what was read; otherwise the end of the text is an error.
  private func endOfText(_ value: GeneratedContent) throws -> GeneratedContent {
    if allowsPartial { return value }
    throw EndOfText()
  }

  private func invalid(_ reason: String) -> GeneratedContentError {
    .invalidJSON(text, reason: reason)
  }

  private static func hexDigitValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  private static func isNumberByte(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
  }

  /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  private static func isJSONNumber(_ literal: String) -> Bool {
    literal.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
  }
}

/// Writes ``GeneratedContent`` as compact JSON.
enum GeneratedJSONWriter {
  static func write(_ content: GeneratedContent, to output: inout String) {
    switch content.kind {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let value): output += format(value)
    case .string(let value): writeString(value, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        write(element, to: &output)
      }
      output += "]"
    case .structure(let properties, let order):
      output += "{"
      for (index, key) in order.enumerated() {
        if index > 0 { output += "," }
        writeString(key, to: &output)
        output += ":"
        if let value = properties[key] { write(value, to: &output) } else { output += "null" }
      }
      output += "}"
    }
  }

  static func format(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  static func writeString(_ value: String, to output: inout String) {
    output += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _ where scalar.value < 0x20:
        output += String(format: "\\u%04x", scalar.value)
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
