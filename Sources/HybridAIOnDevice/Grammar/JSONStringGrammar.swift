/// How characters of a string value are written inside a JSON string literal, as grammar.
///
/// A regular expression constrains the decoded string, but the model writes its JSON text, so a
/// `"` in the value is `\"` in the grammar and a newline is `\n`. Characters that may appear raw
/// are written raw (one form each keeps the grammar unambiguous); the rest use their escape.
enum JSONStringGrammar {
  /// Characters a JSON string may hold without escaping (DEL is escaped too, as llama.cpp does).
  static let rawCharacters = CodePointSet.all.subtracting(mustEscape)

  /// `"`, `\`, the C0 controls and DEL.
  static let mustEscape = CodePointSet(ranges: [0x00...0x1F, 0x22...0x22, 0x5C...0x5C, 0x7F...0x7F])

  private static let shortEscapes: [UInt32: Unicode.Scalar] = [
    0x22: "\"", 0x5C: "\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t",
  ]

  /// One character of any JSON string: a raw character or an escape sequence (no lone
  /// surrogates, so the text always decodes).
  static var anyCharacter: GrammarExpression {
    let hex = GrammarExpression.oneOf("0123456789abcdefABCDEF")
    let notSurrogate = GrammarExpression.choice(
      .sequence(.oneOf("0123456789abcABCefEF"), hex, hex, hex),
      .sequence(.oneOf("dD"), .oneOf("01234567"), hex, hex))
    return .choice(
      .characters(rawCharacters),
      .sequence(.literal("\\"), .choice(.oneOf("\"\\/bfnrt"), .sequence(.literal("u"), notSurrogate))))
  }

  /// One character from `set`, as JSON string content.
  static func character(in set: CodePointSet) -> GrammarExpression {
    var alternatives: [GrammarExpression] = []
    let raw = set.intersection(rawCharacters)
    if !raw.isEmpty { alternatives.append(.characters(raw)) }
    let escaped = set.intersection(mustEscape)
    guard !escaped.isEmpty else { return .choice(alternatives) }

    var tails: [GrammarExpression] = []
    var short = CodePointSet()
    var unicode: [UInt32] = []
    for value in escaped.members {
      if let letter = shortEscapes[value] {
        short = short.union(CodePointSet([letter]))
      } else {
        unicode.append(value)
      }
    }
    if !short.isEmpty { tails.append(.characters(short)) }
    // `\u00XX` for the other controls, grouped by the high hex digit.
    for high in UInt32(0)...UInt32(7) {
      let lows = unicode.filter { $0 >> 4 == high }.map { $0 & 0xF }
      guard !lows.isEmpty else { continue }
      var digits = ""
      for low in lows {
        digits += String(low, radix: 16)
        if low >= 10 { digits += String(low, radix: 16).uppercased() }
      }
      tails.append(.sequence(.literal("u00\(high)"), .oneOf(digits)))
    }
    alternatives.append(.sequence(.literal("\\"), .choice(tails)))
    return .choice(alternatives)
  }

  /// `text` as JSON string content (without the quotes).
  static func literal(_ text: String) -> GrammarExpression {
    .sequence(text.unicodeScalars.map { character(in: CodePointSet([$0])) })
  }
}
