/// How a session turns the model's text into the content a caller asked for: while streaming
/// (partial values) and at the end.
struct AnswerDecoding<Content: Generable>: Sendable {
  /// The value so far, or `nil` when there is nothing to show yet.
  let partial: @Sendable (String) -> Content.PartiallyGenerated?
  /// The final value, with the artifacts it names linked to their files; throws
  /// ``GenerationError/invalidStructuredOutput(rawContent:reason:)``.
  let final: @Sendable (String, ArtifactLinks) throws -> Content

  /// JSON text decoded as a `Generable` type.
  static func structured(_ type: Content.Type) -> AnswerDecoding<Content> {
    AnswerDecoding(
      partial: { text in
        GeneratedContent(partialJSON: text).flatMap { try? Content.PartiallyGenerated($0) }
      },
      final: { text, links in
        do {
          return try Content(links.resolve(GeneratedContent(json: text)))
        } catch {
          throw GenerationError.invalidStructuredOutput(rawContent: text, reason: "\(error)")
        }
      })
  }
}

extension AnswerDecoding where Content == String {
  /// Text, as it is.
  static var text: AnswerDecoding<String> { AnswerDecoding(partial: { $0 }, final: { text, _ in text }) }
}
