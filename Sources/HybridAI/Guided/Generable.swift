/// A type a model can generate: it describes itself with a ``GenerationSchema`` and is built from
/// the ``GeneratedContent`` the model produced.
///
/// Apply the `@Generable` macro to a struct or an enum instead of conforming by hand:
/// ```swift
/// @Generable(description: "A recipe")
/// struct Recipe {
///   @Guide(description: "A short title") var title: String
///   @Guide(.range(1...5)) var rating: Int
///   @Guide(.count(2...4)) var ingredients: [String]
/// }
/// let recipe = try await session.respond(to: "A pancake recipe", generating: Recipe.self).content
/// ```
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
  /// The type's value while it is still being generated (every property optional); what
  /// ``GenerativeModelSession/streamResponse(to:generating:includeSchemaInPrompt:options:)`` yields.
  associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

  /// The shape of the type's values, given to the model.
  static var generationSchema: GenerationSchema { get }
}

/// A type that can be built from ``GeneratedContent``.
public protocol ConvertibleFromGeneratedContent: Sendable {
  /// Builds a value from generated content; throws ``GeneratedContentError`` when it does not fit.
  init(_ content: GeneratedContent) throws
}

/// A type whose values can be written as ``GeneratedContent`` (for example tool outputs and
/// examples in prompts).
public protocol ConvertibleToGeneratedContent {
  /// The value as generated content.
  var generatedContent: GeneratedContent { get }
}

/// Optionals decode from a missing property as `nil` (see ``GeneratedContent/value(_:forProperty:)``).
protocol OptionalGeneratedContent {
  static var absent: Self { get }
}

extension Optional: OptionalGeneratedContent {
  static var absent: Optional<Wrapped> { nil }
}
