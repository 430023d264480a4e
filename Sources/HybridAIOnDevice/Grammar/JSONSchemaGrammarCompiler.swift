import HybridAI

/// Compiles a JSON Schema into a GBNF grammar, so that llama.cpp's grammar sampler can only
/// produce JSON text that the schema accepts.
///
/// ```swift
/// let grammar = try JSONSchemaGrammarCompiler().compile([
///   "type": "object",
///   "properties": ["city": ["type": "string"], "days": ["type": "integer", "minimum": 1, "maximum": 7]],
///   "required": ["city", "days"],
/// ])
/// // root ::= "{\"city\":" string ",\"days\":" [1-7] "}"  (plus the shared string rules)
/// ```
///
/// The grammar never allows a value the schema rejects: whatever the compiler cannot express
/// exactly makes it throw a ``SchemaGrammarError`` instead of loosening the schema. It may
/// allow fewer texts than the schema, to keep generation short and deterministic:
///
/// - Object properties come in one fixed order: the schema's `propertyOrdering` (Gemini's
///   convention), else the `required` names in order, then the other properties by name.
///   Optional properties may be left out. Properties not listed in `properties` are never
///   generated, whatever `additionalProperties` allows; an object schema without `properties`
///   (and without `required`) allows any object.
/// - `pattern` must match the **whole** string (as if wrapped in `^…$`), unlike JSON Schema,
///   which searches anywhere in the string; llama.cpp's converter does the same.
/// - `oneOf` is compiled like `anyOf`, which is exact when the alternatives do not overlap
///   (tagged unions).
/// - Integers have at most 15 digits; numbers with bounds are written without an exponent and
///   with at most 15 significant digits, so that they keep their value as a `Double`.
/// - Formats produce their usual form: `2024-02-29`, `13:45:00Z` / `13:45:00.5+02:00`,
///   `2024-02-29T13:45:00Z`, and UUIDs in either case.
/// - Whitespace: none in ``WhitespaceStyle/compact``; at most one space, or a newline and
///   bounded indentation, in ``WhitespaceStyle/flexible(maximumIndent:)``.
///
/// Supported keywords: `type` (a name or an array of names), `enum`, `const`, `anyOf`, `oneOf`,
/// `allOf` with one schema, `nullable` (OpenAPI), `$ref` to any local JSON pointer (`#/$defs/…`,
/// `#/definitions/…`; recursion is fine), `properties`, `required`, `additionalProperties`,
/// `items`, `prefixItems`, `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`, `format`
/// (`date`, `time`, `date-time`, `uuid`), `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`. Annotations (`title`, `description`, `default`, `examples`, `$schema`,
/// `$id`, `$comment`, `deprecated`, `readOnly`, `writeOnly`, `propertyOrdering`, `$defs`,
/// `definitions`) are ignored. Any other keyword throws
/// ``SchemaGrammarError/unsupportedKeyword(_:path:)``. `$ref`, `anyOf`, `oneOf` and `allOf`
/// cannot have constraining sibling keywords, and `enum`/`const` values are filtered by the
/// rest of their schema.
public struct JSONSchemaGrammarCompiler: Sendable, Hashable {
  /// Whitespace the grammar allows between JSON tokens.
  public enum WhitespaceStyle: Sendable, Hashable {
    /// No whitespace at all: `{"a":1,"b":[true]}`. The fewest tokens, and nothing to loop on.
    case compact
    /// Optional whitespace between tokens: one space or tab, or a newline followed by at most
    /// `maximumIndent` spaces or tabs. Never unbounded, because small models can loop on
    /// newlines forever.
    case flexible(maximumIndent: Int)
  }

  /// The whitespace the grammars allow.
  public var whitespace: WhitespaceStyle

  /// A compiler producing grammars with the given whitespace style.
  public init(whitespace: WhitespaceStyle = .compact) {
    self.whitespace = whitespace
  }

  /// A complete GBNF grammar for `schema`, whose start rule is `root`.
  public func compile(_ schema: JSONValue) throws(SchemaGrammarError) -> String {
    var translator = SchemaGrammarTranslator(document: schema, whitespace: whitespace, prefix: "")
    return try translator.translate(startName: "root")
  }

  /// GBNF rules for `schema` to embed in a larger grammar: the rule `name` matches one value,
  /// and every helper rule's name starts with `name-`, so rules compiled under different names
  /// never collide. The caller writes the grammar's own `root` rule, for example
  /// `root ::= "<tool_call>\n{\"name\": \"get_time\", \"arguments\": " args-get-time "}\n</tool_call>"`.
  ///
  /// - Parameter name: a GBNF rule name: letters, digits and `-` (not `root` when the rules
  ///   go into a grammar with its own `root`).
  /// - Returns: the rules' text, and the name of the rule to reference (`name`).
  public func compileRule(_ schema: JSONValue, named name: String) throws(SchemaGrammarError) -> (rules: String, ruleName: String) {
    guard GrammarRuleSet.isValidName(name) else { throw .invalidRuleName(name) }
    var translator = SchemaGrammarTranslator(document: schema, whitespace: whitespace, prefix: name + "-")
    return (try translator.translate(startName: name), name)
  }
}
