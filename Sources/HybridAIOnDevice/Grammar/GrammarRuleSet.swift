/// The named rules of a GBNF grammar under construction, and their text.
///
/// Every name gets the set's prefix, so grammars compiled with different prefixes can be pasted
/// into one file. Writing the text also enforces the limits of llama.cpp's GBNF parser:
/// repeated groups become rules of their own (llama.cpp refuses a group of many rules repeated
/// many times), and counts above ``blockSize`` are split into blocks (llama.cpp silently turns
/// `{n,m}` with `m` above 2000 into `{n,}`, which would loosen the grammar).
struct GrammarRuleSet {
  /// Repetition counts above this are written as repetitions of blocks of this many.
  static let blockSize = 1000
  /// The largest count the set can write exactly (`blockSize` blocks of `blockSize`).
  static let largestCount = blockSize * blockSize

  let prefix: String
  private var names: [String] = []
  private var bodies: [String: GrammarExpression] = [:]
  private var used: Set<String>
  private var hoisted: [GrammarExpression: String] = [:]

  /// `reserved` names are never handed out (a caller's own rules).
  init(prefix: String, reserved: Set<String> = []) {
    self.prefix = prefix
    self.used = reserved
  }

  /// Whether `name` is a valid GBNF rule name.
  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
      scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
    }
  }

  /// A fresh rule name: the prefix and `base` (cleaned up), numbered if already taken.
  mutating func reserveName(_ base: String) -> String {
    var cleaned = ""
    for scalar in base.unicodeScalars {
      let isWordCharacter = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
      if isWordCharacter {
        cleaned.unicodeScalars.append(scalar)
      } else if !cleaned.isEmpty, !cleaned.hasSuffix("-") {
        cleaned += "-"
      }
    }
    while cleaned.hasSuffix("-") { cleaned.removeLast() }
    let stem = prefix + (cleaned.isEmpty ? "rule" : cleaned)
    var name = stem
    var number = 2
    while used.contains(name) {
      name = "\(stem)-\(number)"
      number += 1
    }
    used.insert(name)
    return name
  }

  /// Claims exactly `name` (the start rule), which must be free.
  mutating func claim(_ name: String) {
    used.insert(name)
  }

  /// Gives the reserved `name` its right-hand side.
  mutating func define(_ name: String, as body: GrammarExpression) {
    if bodies[name] == nil { names.append(name) }
    bodies[name] = body
  }

  /// A rule for `expression`, shared with any earlier request for the same expression.
  mutating func ruleName(for expression: GrammarExpression, base: String) -> String {
    if case .rule(let name) = expression { return name }
    if let existing = hoisted[expression] { return existing }
    let name = reserveName(base)
    hoisted[expression] = name
    define(name, as: expression)
    return name
  }

  // MARK: Checking

  /// Throws when a rule can reach itself without consuming a character (llama.cpp refuses
  /// left-recursive grammars), or repeats a nullable expression without bound.
  func checkLeftRecursion() throws(SchemaGrammarError) {
    var nullable: [String: Bool] = [:]
    var changed = true
    while changed {
      changed = false
      for name in names where nullable[name] != true {
        if isNullable(bodies[name]!, nullable) {
          nullable[name] = true
          changed = true
        }
      }
    }
    var edges: [String: [String]] = [:]
    for name in names {
      var references: [String] = []
      try leftReferences(of: bodies[name]!, nullable, into: &references, rule: name)
      edges[name] = references
    }
    var state: [String: Bool] = [:]  // false: on the path, true: done
    func visit(_ name: String, _ path: [String]) throws(SchemaGrammarError) {
      if let done = state[name] {
        if !done {
          let cycle = (path.drop { $0 != name } + [name]).joined(separator: " -> ")
          throw .invalidSchema(path: "#", reason: "the schema refers to itself without any JSON in between (\(cycle)), which would never end")
        }
        return
      }
      state[name] = false
      for next in edges[name] ?? [] { try visit(next, path + [name]) }
      state[name] = true
    }
    for name in names { try visit(name, []) }
  }

  private func isNullable(_ expression: GrammarExpression, _ nullable: [String: Bool]) -> Bool {
    switch expression {
    case .literal, .characters: false
    case .rule(let name): nullable[name] ?? false
    case .concatenation(let parts): parts.allSatisfy { isNullable($0, nullable) }
    case .alternation(let alternatives): alternatives.contains { isNullable($0, nullable) }
    case .repetition(let inner, let min, _): min == 0 || isNullable(inner, nullable)
    }
  }

  private func leftReferences(
    of expression: GrammarExpression, _ nullable: [String: Bool], into references: inout [String], rule: String
  ) throws(SchemaGrammarError) {
    switch expression {
    case .literal, .characters:
      return
    case .rule(let name):
      references.append(name)
    case .concatenation(let parts):
      for part in parts {
        try leftReferences(of: part, nullable, into: &references, rule: rule)
        if !isNullable(part, nullable) { return }
      }
    case .alternation(let alternatives):
      for alternative in alternatives {
        try leftReferences(of: alternative, nullable, into: &references, rule: rule)
      }
    case .repetition(let inner, _, let max):
      if max == nil, isNullable(inner, nullable) {
        throw .invalidSchema(path: "#", reason: "rule \(rule) repeats an expression that can be empty without bound")
      }
      try leftReferences(of: inner, nullable, into: &references, rule: rule)
    }
  }

  // MARK: Text

  /// The GBNF text of every rule, in the order they were defined.
  mutating func text() -> String {
    var lines: [String] = []
    var index = 0
    while index < names.count {  // writing a rule may add hoisted rules
      let name = names[index]
      lines.append("\(name) ::= \(text(of: bodies[name]!))")
      index += 1
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private mutating func text(of expression: GrammarExpression) -> String {
    switch expression {
    case .literal(let string):
      return Self.quoted(string)
    case .characters(let set):
      return Self.characterClass(set)
    case .rule(let name):
      return name
    case .concatenation(let parts):
      if parts.isEmpty { return "\"\"" }
      var items: [String] = []
      for part in parts {
        if case .alternation = part {
          items.append("(\(text(of: part)))")
        } else {
          items.append(text(of: part))
        }
      }
      return items.joined(separator: " ")
    case .alternation(let alternatives):
      var items: [String] = []
      for alternative in alternatives { items.append(text(of: alternative)) }
      return items.joined(separator: " | ")
    case .repetition(let inner, let min, let max):
      if min > Self.blockSize || (max ?? 0) > Self.blockSize {
        return "(\(text(of: blocks(of: inner, min: min, max: max))))"
      }
      let operand: String
      switch inner {
      case .literal, .characters, .rule:
        operand = text(of: inner)
      default:
        if max == 1, min <= 1 {
          operand = "(\(text(of: inner)))"
        } else {
          operand = ruleName(for: inner, base: "repeat")
        }
      }
      switch (min, max) {
      case (0, 1?): return operand + "?"
      case (0, nil): return operand + "*"
      case (1, nil): return operand + "+"
      case (_, nil): return operand + "{\(min),}"
      case (_, let max?) where max == min: return operand + "{\(min)}"
      case (_, let max?): return operand + "{\(min),\(max)}"
      }
    }
  }

  /// `inner{min,max}` with counts above ``blockSize`` rewritten into exact repetitions of blocks.
  private mutating func blocks(of inner: GrammarExpression, min: Int, max: Int?) -> GrammarExpression {
    let item = GrammarExpression.rule(ruleName(for: inner, base: "repeat"))
    let block = GrammarExpression.rule(
      ruleName(for: .repetition(item, min: Self.blockSize, max: Self.blockSize), base: "block"))
    let required = GrammarExpression.sequence(
      .repeated(block, min: min / Self.blockSize, max: min / Self.blockSize),
      .repeated(item, min: min % Self.blockSize, max: min % Self.blockSize))
    guard let max else { return .sequence(required, .repeated(item, min: 0, max: nil)) }
    let extra = max - min
    guard extra > Self.blockSize else { return .sequence(required, .repeated(item, min: 0, max: extra)) }
    // Exactly 0...extra items: fewer than q blocks plus up to a block less one, or q blocks plus
    // up to the remainder. The two alternatives cover disjoint counts.
    let wholeBlocks = extra / Self.blockSize
    let optional = GrammarExpression.choice(
      .sequence(.repeated(block, min: 0, max: wholeBlocks - 1), .repeated(item, min: 0, max: Self.blockSize - 1)),
      .sequence(.repeated(block, min: wholeBlocks, max: wholeBlocks),
                .repeated(item, min: 0, max: extra % Self.blockSize)))
    return .sequence(required, optional)
  }

  /// A GBNF string literal.
  static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case " "..."~": result.unicodeScalars.append(scalar)
      default: result += escaped(scalar.value)
      }
    }
    return result + "\""
  }

  /// A GBNF character class, negated when that is shorter.
  static func characterClass(_ set: CodePointSet) -> String {
    let inverted = set.inverted
    let (ranges, negated) = inverted.ranges.count <= set.ranges.count ? (inverted.ranges, true) : (set.ranges, false)
    var result = negated ? "[^" : "["
    for range in ranges {
      result += classCharacter(range.lowerBound)
      if range.upperBound > range.lowerBound {
        if range.upperBound > range.lowerBound + 1 { result += "-" }
        result += classCharacter(range.upperBound)
      }
    }
    return result + "]"
  }

  private static func classCharacter(_ value: UInt32) -> String {
    switch value {
    case 0x5C: return "\\\\"
    case 0x5D: return "\\]"
    case 0x5B: return "\\["
    case 0x2D: return "\\-"
    case 0x22: return "\\\""
    case 0x5E: return "\\x5E"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    case 0x20...0x7E: return String(Character(Unicode.Scalar(value)!))
    default: return escaped(value)
    }
  }

  private static func escaped(_ value: UInt32) -> String {
    let hex = String(value, radix: 16, uppercase: true)
    switch value {
    case ..<0x100: return "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
    case ..<0x10000: return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: return "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }
  }
}
