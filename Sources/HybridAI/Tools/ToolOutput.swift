/// What a tool returns to the model: text or structured content, and any files it made.
///
/// Artifacts (images, audio, files) are never shown to the model as bytes: the session keeps them
/// in its ``ArtifactStore`` and the model reads only a short reference for each.
public struct ToolOutput: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The output's content.
  public enum Content: Sendable, Hashable {
    case text(String)
    case structure(GeneratedContent)
  }

  public var content: Content
  /// Files the tool made (kept by the session, referenced for the model, returned on the response).
  public var artifacts: [Artifact] = []

  /// Text for the model.
  public init(_ text: String) { content = .text(text) }

  /// Text for the model, and the artifacts the tool made.
  public init(_ text: String, artifacts: [Artifact]) {
    content = .text(text)
    self.artifacts = artifacts
  }

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
