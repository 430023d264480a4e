/// What the user says to the model: text and ``Attachment``s, in order.
///
/// ```swift
/// let answer = try await session.respond(to: Prompt {
///   "What is in this photo?"
///   try Attachment(contentsOf: photoURL)
/// })
/// ```
/// Consecutive texts are joined with a new line.
public struct Prompt: Sendable, Hashable, ExpressibleByStringLiteral {
  /// One piece of a prompt.
  public enum Part: Sendable, Hashable {
    case text(String)
    case attachment(Attachment)
  }

  /// The pieces, in order.
  public var parts: [Part]

  public init(parts: [Part]) { self.parts = parts }

  /// A text-only prompt.
  public init(_ text: String) { parts = [.text(text)] }

  public init(stringLiteral text: String) { self.init(text) }

  /// A prompt built from texts and attachments.
  public init(@PromptBuilder _ content: () throws -> Prompt) rethrows { self = try content() }

  /// The text pieces, joined with new lines.
  public var text: String {
    parts.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined(separator: "\n")
  }

  /// The attachments, in order.
  public var attachments: [Attachment] {
    parts.compactMap { if case .attachment(let attachment) = $0 { attachment } else { nil } }
  }
}

/// Builds a ``Prompt`` from strings, ``Attachment``s and other prompts.
@resultBuilder
public enum PromptBuilder {
  public static func buildExpression(_ text: String) -> Prompt { Prompt(text) }
  public static func buildExpression(_ attachment: Attachment) -> Prompt { Prompt(parts: [.attachment(attachment)]) }
  public static func buildExpression(_ prompt: Prompt) -> Prompt { prompt }
  public static func buildBlock(_ prompts: Prompt...) -> Prompt { Prompt(parts: prompts.flatMap(\.parts)) }
  public static func buildArray(_ prompts: [Prompt]) -> Prompt { Prompt(parts: prompts.flatMap(\.parts)) }
  public static func buildOptional(_ prompt: Prompt?) -> Prompt { prompt ?? Prompt(parts: []) }
  public static func buildEither(first prompt: Prompt) -> Prompt { prompt }
  public static func buildEither(second prompt: Prompt) -> Prompt { prompt }
}
