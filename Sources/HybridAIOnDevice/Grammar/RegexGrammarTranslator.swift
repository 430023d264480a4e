/// Translates a JSON Schema `pattern` (ECMA-262 syntax) into grammar for the content of a JSON
/// string.
///
/// The pattern must match the **whole** string: unlike JSON Schema, which searches for the
/// pattern anywhere in the string, a leading `^` and a trailing `$` are implied (llama.cpp's
/// own converter does the same). This keeps generation focused; write `.*foo.*` to allow text
/// around a match.
///
/// Supported: literal characters and escapes (`\d \D \w \W \s \S \t \n \r \f \v \0 \xHH \uHHHH
/// \cX`, escaped punctuation), character classes with ranges and negation, `.`, groups
/// (capturing, `(?:…)` and `(?<name>…)`), alternation, the greedy quantifiers
/// `? * + {n} {n,} {n,m}`, `^` at the start and `$` at the end of a top-level alternative.
/// Rejected with ``SchemaGrammarError/invalidPattern(_:path:reason:)``: backreferences,
/// lookarounds, word boundaries, lazy and possessive quantifiers, Unicode property escapes and
/// anchors anywhere else.
///
/// Character classes follow ECMA-262 (`\d` is `[0-9]`, `\w` is `[A-Za-z0-9_]`, `.` excludes
/// only line terminators), as ``HybridAI/JSONSchemaValidator`` does.
struct RegexGrammarTranslator {
  static let digits = CodePointSet(ranges: [0x30...0x39])
  static let word = CodePointSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
  static let space = CodePointSet(ranges: [
    0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
    0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
  ])
  static let lineTerminators = CodePointSet(ranges: [0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029])

  private let pattern: String
  private let path: String
  private let scalars: [Unicode.Scalar]
  private var position = 0

  private init(pattern: String, path: String) {
    self.pattern = pattern
    self.path = path
    self.scalars = Array(pattern.unicodeScalars)
  }

  /// The grammar for string content that `pattern` matches as a whole.
  static func translate(_ pattern: String, path: String) throws(SchemaGrammarError) -> GrammarExpression {
    var translator = RegexGrammarTranslator(pattern: pattern, path: path)
    let expression = try translator.alternation(depth: 0)
    if translator.position < translator.scalars.count {
      throw translator.failure("unbalanced ')'")
    }
    if expression.isNothing { throw translator.failure("it matches no string") }
    return expression
  }

  // MARK: Structure

  private var next: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

  private func peek(_ offset: Int) -> Unicode.Scalar? {
    position + offset < scalars.count ? scalars[position + offset] : nil
  }

  private func failure(_ reason: String) -> SchemaGrammarError {
    .invalidPattern(pattern, path: path, reason: reason)
  }

  private mutating func alternation(depth: Int) throws(SchemaGrammarError) -> GrammarExpression {
    var branches = [try branch(depth: depth)]
    while next == "|" {
      position += 1
      branches.append(try branch(depth: depth))
    }
    return .choice(branches)
  }

  private mutating func branch(depth: Int) throws(SchemaGrammarError) -> GrammarExpression {
    var items: [GrammarExpression] = []
    if next == "^" {
      guard depth == 0 else { throw failure("'^' inside a group is not supported (the whole string is always matched)") }
      position += 1
    }
    while let scalar = next, scalar != "|", scalar != ")" {
      if scalar == "$" {
        position += 1
        guard depth == 0, next == nil || next == "|" else {
          throw failure("'$' is only supported at the end of the pattern (the whole string is always matched)")
        }
        break
      }
      let atom = try self.atom(depth: depth)
      items.append(try quantified(atom))
    }
    return .sequence(items)
  }

  private mutating func atom(depth: Int) throws(SchemaGrammarError) -> GrammarExpression {
    let scalar = next!
    switch scalar {
    case "(":
      position += 1
      if next == "?" {
        switch peek(1) {
        case ":":
          position += 2
        case "=", "!":
          throw failure("lookahead assertions are not supported")
        case "<" where peek(2) == "=" || peek(2) == "!":
          throw failure("lookbehind assertions are not supported")
        case "<":
          position += 2
          while let character = next, character != ">" {
            guard character.properties.isAlphabetic || character.properties.numericType != nil || character == "_" else {
              throw failure("invalid group name")
            }
            position += 1
          }
          guard next == ">" else { throw failure("unterminated group name") }
          position += 1
        default:
          throw failure("'(?' groups other than (?:…) and (?<name>…) are not supported")
        }
      }
      let inner = try alternation(depth: depth + 1)
      guard next == ")" else { throw failure("missing ')'") }
      position += 1
      return inner
    case "[":
      position += 1
      return try characters(inClass())
    case ".":
      position += 1
      return characters(Self.lineTerminators.inverted)
    case "\\":
      position += 1
      return try characters(escape(inClass: false))
    case "*", "+", "?":
      throw failure("'\(scalar)' has nothing to repeat")
    case "{" where quantifierBounds(at: position) != nil:
      throw failure("'{' has nothing to repeat")
    case "^", "$":
      throw failure("anchors are only supported at the start ('^') and end ('$') of the pattern")
    default:
      position += 1
      return JSONStringGrammar.literal(String(scalar))
    }
  }

  private func characters(_ set: CodePointSet) -> GrammarExpression {
    JSONStringGrammar.character(in: set)
  }

  // MARK: Quantifiers

  private mutating func quantified(_ atom: GrammarExpression) throws(SchemaGrammarError) -> GrammarExpression {
    let bounds: (min: Int, max: Int?)
    switch next {
    case "?": bounds = (0, 1); position += 1
    case "*": bounds = (0, nil); position += 1
    case "+": bounds = (1, nil); position += 1
    case "{":
      guard let (parsed, length) = quantifierBounds(at: position) else { return atom }
      bounds = parsed
      position += length
    default:
      return atom
    }
    if next == "?" { throw failure("lazy quantifiers are not supported") }
    if next == "+" { throw failure("possessive quantifiers are not supported") }
    if let max = bounds.max, max < bounds.min {
      throw failure("the quantifier {\(bounds.min),\(max)} has its bounds in the wrong order")
    }
    if max(bounds.min, bounds.max ?? 0) > GrammarRuleSet.largestCount {
      throw failure("repetition counts above \(GrammarRuleSet.largestCount) are not supported")
    }
    guard bounds.max == nil, atom.isNullable else {
      return .repeated(atom, min: bounds.min, max: bounds.max)
    }
    // x{n,} = x{n} followed by any number of non-empty x (GBNF cannot repeat a nullable
    // expression without bound).
    return .sequence(.repeated(atom, min: bounds.min, max: bounds.min), .repeated(atom.withoutEmpty, min: 0, max: nil))
  }

  /// `{n}`, `{n,}` or `{n,m}` at `start`, and its length; `nil` when the brace is a literal.
  private func quantifierBounds(at start: Int) -> ((min: Int, max: Int?), Int)? {
    var index = start + 1
    func number() -> Int? {
      var value: Int?
      while index < scalars.count, scalars[index].isASCII, let digit = Int(String(scalars[index])) {
        value = min((value ?? 0) * 10 + digit, Int(Int32.max))
        index += 1
      }
      return value
    }
    guard let low = number() else { return nil }
    var high: Int? = low
    if index < scalars.count, scalars[index] == "," {
      index += 1
      high = number()
    }
    guard index < scalars.count, scalars[index] == "}" else { return nil }
    return ((low, high), index + 1 - start)
  }

  // MARK: Character classes and escapes

  private mutating func inClass() throws(SchemaGrammarError) -> CodePointSet {
    var negated = false
    if next == "^" {
      negated = true
      position += 1
    }
    var set = CodePointSet()
    while true {
      guard let scalar = next else { throw failure("missing ']'") }
      if scalar == "]" {
        position += 1
        break
      }
      let low = try classMember()
      if next == "-", let after = peek(1), after != "]" {
        position += 1
        let high = try classMember()
        guard low.count == 1, high.count == 1 else {
          throw failure("a range in a character class cannot start or end with a class escape such as \\d")
        }
        guard low.ranges[0].lowerBound <= high.ranges[0].lowerBound else {
          throw failure("the character class range is out of order")
        }
        set = set.union(CodePointSet(ranges: [low.ranges[0].lowerBound...high.ranges[0].lowerBound]))
      } else {
        set = set.union(low)
      }
    }
    let result = negated ? set.inverted : set
    if result.isEmpty { throw failure("the character class matches no character") }
    return result
  }

  private mutating func classMember() throws(SchemaGrammarError) -> CodePointSet {
    let scalar = next!
    position += 1
    if scalar == "\\" { return try escape(inClass: true) }
    return CodePointSet([scalar])
  }

  /// The characters an escape (after its backslash) stands for.
  private mutating func escape(inClass: Bool) throws(SchemaGrammarError) -> CodePointSet {
    guard let scalar = next else { throw failure("the pattern ends with a lone '\\'") }
    position += 1
    func single(_ value: UInt32) -> CodePointSet { CodePointSet(ranges: [value...value]) }
    switch scalar {
    case "d": return Self.digits
    case "D": return Self.digits.inverted
    case "w": return Self.word
    case "W": return Self.word.inverted
    case "s": return Self.space
    case "S": return Self.space.inverted
    case "t": return single(0x09)
    case "n": return single(0x0A)
    case "r": return single(0x0D)
    case "f": return single(0x0C)
    case "v": return single(0x0B)
    case "b" where inClass: return single(0x08)
    case "b", "B": throw failure("word boundaries (\\b, \\B) are not supported")
    case "0":
      if let digit = next, Self.digits.contains(digit.value) { throw failure("octal escapes are not supported") }
      return single(0)
    case "1"..."9": throw failure("backreferences are not supported")
    case "k" where next == "<": throw failure("backreferences are not supported")
    case "p", "P": throw failure("Unicode property escapes (\\p{…}) are not supported")
    case "x":
      return single(try hexadecimal(digits: 2))
    case "u":
      if next == "{" { throw failure("\\u{…} escapes are not supported; use \\uHHHH") }
      let value = try hexadecimal(digits: 4)
      if (0xD800...0xDBFF).contains(value) {
        guard next == "\\", peek(1) == "u" else { throw failure("a lone UTF-16 surrogate cannot be matched") }
        position += 2
        let low = try hexadecimal(digits: 4)
        guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone UTF-16 surrogate cannot be matched") }
        return single(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
      }
      if (0xDC00...0xDFFF).contains(value) { throw failure("a lone UTF-16 surrogate cannot be matched") }
      return single(value)
    case "c":
      guard let letter = next, letter.isASCII, letter.properties.isAlphabetic else {
        throw failure("\\c must be followed by a letter")
      }
      position += 1
      return single(letter.value % 32)
    default:
      if scalar.isASCII, scalar.properties.isAlphabetic || Self.digits.contains(scalar.value) {
        throw failure("unknown escape '\\\(scalar)'")
      }
      return CodePointSet([scalar])
    }
  }

  private mutating func hexadecimal(digits count: Int) throws(SchemaGrammarError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<count {
      guard let scalar = next, let digit = UInt32(String(scalar), radix: 16) else {
        throw failure("expected \(count) hexadecimal digits in an escape")
      }
      value = value * 16 + digit
      position += 1
    }
    return value
  }
}
