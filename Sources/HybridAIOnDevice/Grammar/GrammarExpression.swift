/// The right-hand side of a GBNF rule, as a tree, before it is written out as text.
///
/// Build values with the static helpers (``sequence(_:)``, ``choice(_:)``, ``repeated(_:min:max:)``),
/// which flatten nesting, merge literals and drop parts that cannot match, so the text that
/// ``GrammarRuleSet`` writes stays small.
indirect enum GrammarExpression: Hashable, Sendable {
  /// These exact characters (never empty).
  case literal(String)
  /// One character from the set (never empty).
  case characters(CodePointSet)
  /// Each part in turn; `concatenation([])` matches the empty string.
  case concatenation([GrammarExpression])
  /// Any one of the alternatives; `alternation([])` matches nothing at all.
  case alternation([GrammarExpression])
  /// The expression `min` to `max` times (`nil`: no upper limit).
  case repetition(GrammarExpression, min: Int, max: Int?)
  /// A reference to a named rule.
  case rule(String)

  /// Matches only the empty string.
  static let empty = GrammarExpression.concatenation([])
  /// Matches no string at all.
  static let nothing = GrammarExpression.alternation([])

  var isEmpty: Bool { self == .empty }
  var isNothing: Bool { self == .nothing }

  /// One character, e.g. a digit class.
  static func oneOf(_ characters: String) -> GrammarExpression {
    .characters(CodePointSet(characters: characters))
  }

  /// A character range such as `0`-`9`.
  static func range(_ low: Unicode.Scalar, _ high: Unicode.Scalar) -> GrammarExpression {
    .characters(CodePointSet(ranges: [low.value...high.value]))
  }

  static func text(_ text: String) -> GrammarExpression {
    text.isEmpty ? .empty : .literal(text)
  }

  /// The parts one after the other.
  static func sequence(_ parts: [GrammarExpression]) -> GrammarExpression {
    var flat: [GrammarExpression] = []
    for part in parts {
      switch part {
      case .concatenation(let inner):
        for item in inner { appendMerging(item, to: &flat) }
      case .alternation(let alternatives) where alternatives.isEmpty:
        return .nothing
      default:
        appendMerging(part, to: &flat)
      }
    }
    return flat.count == 1 ? flat[0] : .concatenation(flat)
  }

  static func sequence(_ parts: GrammarExpression...) -> GrammarExpression { sequence(parts) }

  private static func appendMerging(_ part: GrammarExpression, to parts: inout [GrammarExpression]) {
    if case .literal(let text) = part, case .literal(let previous)? = parts.last {
      parts[parts.count - 1] = .literal(previous + text)
    } else {
      parts.append(part)
    }
  }

  /// Any one of the alternatives. Single characters and character sets are merged into one set.
  static func choice(_ alternatives: [GrammarExpression]) -> GrammarExpression {
    var flat: [GrammarExpression] = []
    var characters = CodePointSet()
    var characterPosition: Int?
    func add(_ alternative: GrammarExpression) {
      switch alternative {
      case .alternation(let inner):
        inner.forEach(add)
      case .characters(let set):
        guard !set.isEmpty else { return }
        characters = characters.union(set)
        if characterPosition == nil { characterPosition = flat.count; flat.append(.nothing) }
      case .literal(let text) where text.unicodeScalars.count == 1:
        characters = characters.union(CodePointSet(Array(text.unicodeScalars)))
        if characterPosition == nil { characterPosition = flat.count; flat.append(.nothing) }
      default:
        if !flat.contains(alternative) { flat.append(alternative) }
      }
    }
    alternatives.forEach(add)
    if let emptyPosition = flat.firstIndex(of: .empty) {
      flat.remove(at: emptyPosition)
      if let position = characterPosition, position > emptyPosition { characterPosition = position - 1 }
      guard !flat.isEmpty || characterPosition != nil else { return .empty }
      return .optional(choice(flat.enumerated().map { index, item in
        index == characterPosition ? .characters(characters) : item
      }))
    }
    if let characterPosition {
      if characters.count == 1, let scalar = Unicode.Scalar(characters.ranges[0].lowerBound) {
        flat[characterPosition] = .literal(String(Character(scalar)))
      } else {
        flat[characterPosition] = .characters(characters)
      }
    }
    return flat.count == 1 ? flat[0] : .alternation(flat)
  }

  static func choice(_ alternatives: GrammarExpression...) -> GrammarExpression { choice(alternatives) }

  /// The expression or nothing.
  static func optional(_ expression: GrammarExpression) -> GrammarExpression {
    repeated(expression, min: 0, max: 1)
  }

  /// `expression` between `min` and `max` times (`max == nil`: unbounded).
  static func repeated(_ expression: GrammarExpression, min: Int, max: Int?) -> GrammarExpression {
    if let max, max < min { return .nothing }
    if max == 0 || expression.isEmpty { return .empty }
    if expression.isNothing { return min == 0 ? .empty : .nothing }
    if min == 1, max == 1 { return expression }
    if case .literal(let text) = expression, let max, max == min, min * text.count <= 32 {
      return .literal(String(repeating: text, count: min))
    }
    return .repetition(expression, min: min, max: max)
  }

  /// Whether the expression matches the empty string. Rules count as non-empty: schema rules
  /// always produce a JSON value, and regular expressions are translated without rule references.
  var isNullable: Bool {
    switch self {
    case .literal, .characters, .rule: false
    case .concatenation(let parts): parts.allSatisfy(\.isNullable)
    case .alternation(let alternatives): alternatives.contains(where: \.isNullable)
    case .repetition(let inner, let min, _): min == 0 || inner.isNullable
    }
  }

  /// The same language without the empty string. GBNF cannot repeat a nullable expression
  /// without bound (llama.cpp rewrites `x*` into a right-recursive rule, which is then left
  /// recursive), so unbounded repetitions use this first.
  var withoutEmpty: GrammarExpression {
    guard isNullable else { return self }
    switch self {
    case .literal, .characters, .rule:
      return self
    case .concatenation(let parts):
      // Every part is nullable: the first non-empty part decides.
      guard let first = parts.first else { return .nothing }
      let rest = GrammarExpression.sequence(Array(parts.dropFirst()))
      return .choice(.sequence(first.withoutEmpty, rest), rest.withoutEmpty)
    case .alternation(let alternatives):
      return .choice(alternatives.map(\.withoutEmpty))
    case .repetition(let inner, _, let max):
      return .repeated(inner.withoutEmpty, min: 1, max: max)
    }
  }
}
