/// Why ``JSONSchemaGrammarCompiler`` could not turn a JSON Schema into a grammar.
///
/// Paths are JSON pointers into the schema document, such as `#/properties/tags/items`. The
/// compiler never loosens a schema it cannot express exactly: it throws one of these instead.
public enum SchemaGrammarError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The schema uses a keyword the compiler does not support (e.g. `multipleOf`, `not`,
  /// `patternProperties`).
  case unsupportedKeyword(String, path: String)
  /// A supported keyword has a value, or a combination with other keywords, that cannot be
  /// expressed as a grammar (e.g. `format: "email"`, `anyOf` next to `properties`).
  case unsupportedValue(keyword: String, path: String, reason: String)
  /// The schema is malformed or can never be satisfied (e.g. `minimum` above `maximum`).
  case invalidSchema(path: String, reason: String)
  /// A `$ref` that does not point into the schema document.
  case unresolvedReference(String, path: String)
  /// A `pattern` that is not a regular expression, or uses a construct the compiler cannot
  /// translate (backreferences, lookarounds, lazy quantifiers, anchors inside the pattern).
  case invalidPattern(String, path: String, reason: String)
  /// A rule name that GBNF does not allow (only letters, digits and `-`).
  case invalidRuleName(String)
  /// A tool's parameters schema cannot be compiled (the tool's name, and why, as above).
  case toolParameters(tool: String, reason: String)

  /// What cannot be compiled and where, for people.
  public var description: String {
    switch self {
    case .unsupportedKeyword(let keyword, let path):
      "the JSON Schema keyword '\(keyword)' at \(path) is not supported for guided generation"
    case .unsupportedValue(let keyword, let path, let reason):
      "'\(keyword)' at \(path) cannot be used for guided generation: \(reason)"
    case .invalidSchema(let path, let reason):
      "invalid JSON Schema at \(path): \(reason)"
    case .unresolvedReference(let reference, let path):
      "the $ref '\(reference)' at \(path) does not point into the schema (only local references such as #/$defs/Name are supported)"
    case .invalidPattern(let pattern, let path, let reason):
      "the pattern '\(pattern)' at \(path) cannot be used for guided generation: \(reason)"
    case .invalidRuleName(let name):
      "'\(name)' is not a GBNF rule name (use letters, digits and '-')"
    case .toolParameters(let tool, let reason):
      "the parameters of tool \(tool): \(reason)"
    }
  }
}
