/// What a tool returns to the model: text or structured content.
public struct ToolOutput: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The output's content.
  public enum Content: Sendable, Hashable {
    case text(String)
    case structure(GeneratedContent)
  }

  public var content: Content

  /// Text for the model.
  public init(_ text: String) { content = .text(text) }

  /// Structured content for the model (sent as JSON).
  public init(_ value: some ConvertibleToGeneratedContent) { content = .structure(value.generatedContent) }

  public init(stringLiteral value: String) { self.init(value) }

  public init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

  /// The output as the model reads it: the text, or the JSON of structured content.
  public var description: String {
    switch content {
    case .text(let text): text
    case .structure(let structure): structure.jsonString
    }
  }
}
