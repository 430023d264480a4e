import HybridAI

extension SchemaGrammarTranslator {
  /// Strings: `minLength`/`maxLength` (in characters; an escape counts as one), `pattern`
  /// (whole-string match) or `format`, one of them at a time.
  mutating func stringExpression(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError) -> GrammarExpression {
    let minimum = try Self.count(schema, "minLength", at: path)
    let maximum = try Self.count(schema, "maxLength", at: path)
    let pattern = try Self.string(schema, "pattern", at: path)
    let format = try Self.string(schema, "format", at: path)
    let quote = GrammarExpression.literal("\"")

    if let format {
      guard pattern == nil, minimum == nil, maximum == nil else {
        throw .unsupportedValue(keyword: "format", path: path, reason: "it cannot be combined with 'pattern', 'minLength' or 'maxLength'")
      }
      guard let content = FormatGrammar.content(for: format) else {
        throw .unsupportedValue(keyword: "format", path: path, reason: "the format '\(format)' is not supported (supported: \(FormatGrammar.names.joined(separator: ", ")))")
      }
      return .sequence(quote, .rule(rules.ruleName(for: content, base: format)), quote)
    }
    if let pattern {
      guard minimum == nil, maximum == nil else {
        throw .unsupportedValue(keyword: "pattern", path: path, reason: "it cannot be combined with 'minLength' or 'maxLength'; express the length in the pattern")
      }
      let content = try RegexGrammarTranslator.translate(pattern, path: Self.pointer(path, "pattern"))
      return .sequence(quote, content, quote)
    }
    if let minimum, let maximum, minimum > maximum {
      throw .invalidSchema(path: path, reason: "'minLength' (\(minimum)) is greater than 'maxLength' (\(maximum))")
    }
    guard minimum != nil || maximum != nil else { return shared(.string) }
    return .sequence(quote, .repeated(shared(.character), min: minimum ?? 0, max: maximum), quote)
  }

  /// Integers between the bounds, digit by digit (no leading zeros, at most 15 digits).
  mutating func integerExpression(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError) -> GrammarExpression {
    let (lower, upper) = try bounds(schema, at: path)
    guard lower != nil || upper != nil else { return shared(.integer) }
    let limit = Double(IntegerRangeGrammar.limit)
    // The smallest and largest integers inside the bounds.
    let low = lower.map { $0.exclusive ? $0.value.rounded(.down) + 1 : $0.value.rounded(.up) }
    let high = upper.map { $0.exclusive ? $0.value.rounded(.up) - 1 : $0.value.rounded(.down) }
    if let low, let high, low > high {
      throw .invalidSchema(path: path, reason: "no integer lies between the minimum and the maximum")
    }
    if let low, low > limit {
      throw .unsupportedValue(keyword: "minimum", path: path, reason: "integers above \(IntegerRangeGrammar.limit) cannot be generated")
    }
    if let high, high < -limit {
      throw .unsupportedValue(keyword: "maximum", path: path, reason: "integers below -\(IntegerRangeGrammar.limit) cannot be generated")
    }
    let from = low.flatMap { $0 < -limit ? nil : Int64($0) }
    let to = high.flatMap { $0 > limit ? nil : Int64($0) }
    return IntegerRangeGrammar.integers(from: from, to: to)
  }

  /// Numbers between the bounds, exactly; bounded numbers have no exponent and at most 15
  /// significant digits.
  mutating func numberExpression(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError) -> GrammarExpression {
    let (lower, upper) = try bounds(schema, at: path)
    guard lower != nil || upper != nil else { return shared(.number) }
    if let lower, let upper, lower.value > upper.value || (lower.value == upper.value && (lower.exclusive || upper.exclusive)) {
      throw .invalidSchema(path: path, reason: "no number lies between the minimum and the maximum")
    }
    let limit = Double(IntegerRangeGrammar.limit) + 1
    if let lower, lower.value >= limit {
      throw .unsupportedValue(keyword: "minimum", path: path, reason: "numbers of 10^15 and above cannot be generated exactly")
    }
    if let upper, upper.value <= -limit {
      throw .unsupportedValue(keyword: "maximum", path: path, reason: "numbers of -10^15 and below cannot be generated exactly")
    }
    let expression = NumberRangeGrammar.numbers(above: lower, below: upper)
    if expression.isNothing {
      throw .unsupportedValue(keyword: "minimum", path: path, reason: "no number with at most 15 significant digits lies between the bounds")
    }
    return expression
  }

  /// The tightest lower and upper bound from `minimum`, `maximum`, `exclusiveMinimum` and
  /// `exclusiveMaximum` (numbers, or booleans in the draft-4/OpenAPI 3.0 style).
  private func bounds(_ schema: [String: JSONValue], at path: String) throws(SchemaGrammarError)
    -> (lower: NumberRangeGrammar.Bound?, upper: NumberRangeGrammar.Bound?)
  {
    func bound(_ inclusiveKey: String, _ exclusiveKey: String, tighter: (Double, Double) -> Bool) throws(SchemaGrammarError) -> NumberRangeGrammar.Bound? {
      let inclusive = try Self.number(schema, inclusiveKey, at: path)
      var result = inclusive.map { NumberRangeGrammar.Bound(value: $0, exclusive: false) }
      switch schema[exclusiveKey] {
      case nil:
        break
      case .bool(let flag)?:
        guard inclusive != nil || !flag else {
          throw .invalidSchema(path: path, reason: "'\(exclusiveKey)': true needs '\(inclusiveKey)'")
        }
        result?.exclusive = flag
      case .number(let value)? where value.isFinite:
        if result == nil || tighter(value, result!.value) || value == result!.value {
          result = NumberRangeGrammar.Bound(value: value, exclusive: true)
        }
      default:
        throw .invalidSchema(path: path, reason: "'\(exclusiveKey)' must be a number")
      }
      return result
    }
    return (try bound("minimum", "exclusiveMinimum", tighter: >), try bound("maximum", "exclusiveMaximum", tighter: <))
  }
}
