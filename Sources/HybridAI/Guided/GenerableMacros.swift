/// Makes a struct or an enum ``Generable``: a model can generate its values.
///
/// The macro adds an extension with:
/// - `static var generationSchema`: for a struct, an object schema with one property per stored
///   property, in declaration order, named as in Swift (`@Guide` adds descriptions and guides);
///   for an enum, see below.
/// - `init(_ content: GeneratedContent) throws`: decodes a value, throwing
///   ``GeneratedContentError`` when the content does not fit (a missing optional property is `nil`).
/// - `var generatedContent: GeneratedContent`: the value as content (for examples and tool outputs).
/// - for a struct, a nested `PartiallyGenerated` struct: every stored property optional (a nested
///   @Generable type `T` becomes `T.PartiallyGenerated?`), filled in as far as the content goes;
///   its `init(_:)` never throws, so every prefix of a streamed answer decodes.
///
/// The generated members have the type's access level when it is `public` or `package`.
///
/// ```swift
/// @Generable(description: "A recipe")
/// struct Recipe {
///   @Guide(description: "A short title") var title: String
///   @Guide(.range(1...5)) var rating: Int
///   @Guide(.count(2...4)) var ingredients: [Ingredient]
///   var notes: String?          // optional: the model may leave it out
/// }
/// ```
///
/// **Property types**: `String`, `Bool`, `Int` and the sized integers, `Double`, `Float`,
/// arrays (`[T]`, `Array<T>`), optionals (`T?`, `Optional<T>`) and other `@Generable` types.
/// Dictionaries, tuples, functions, `Any`/`any P`/`some P`, `Date`, `URL`, `Data`, `UUID`,
/// `Decimal`, `Set`, implicitly unwrapped optionals and stored properties without a type
/// annotation are compile-time errors (with a suggested replacement where there is one), and so
/// is a property (or associated value) holding the type itself: schemas can't refer to themselves.
/// Static properties, computed properties and `let` constants with an initial value are not
/// generated (a `@Guide` on one of them is a warning).
///
/// **Enums** whose cases have no associated values are generated as one of the case names (a
/// JSON string; raw values are ignored). When any case has associated values, each case is an
/// object: `{"case": "name", …}` with its associated values as properties named by their labels
/// (`_0`, `_1`, … for unlabelled ones). An enum's `PartiallyGenerated` is the enum itself.
///
/// Applied to a class, an actor or a protocol, the macro reports an error.
///
/// - Parameter description: What the type is, for the model (the schema's `description`).
@attached(
  extension,
  conformances: Generable,
  names: named(generationSchema), named(init(_:)), named(generatedContent), named(PartiallyGenerated))
public macro Generable(description: String? = nil) =
  #externalMacro(module: "HybridAIMacros", type: "GenerableMacro")

/// Describes a stored property of a `@Generable` struct to the model, and narrows its values.
///
/// ```swift
/// @Guide(description: "Stars from 1 to 5", .range(1...5)) var rating: Int
/// @Guide(.count(2...4)) var tags: [String]
/// @Guide(.element(.range(1...9))) var digits: [Int]
/// @Guide(.anyOf(["small", "large"])) var size: String
/// @Guide(.pattern("[A-Z]{3}")) var code: String?
/// ```
///
/// `@Guide` itself generates nothing: `@Generable` reads the attribute and passes each guide to
/// the property's schema as a ``GenerationGuide`` of the property's type (the wrapped type for
/// an optional), so a guide that does not fit the type (`.count` on a `String`) is an error.
/// Write each guide inline, as `.name(arguments)`; the attribute's ``GuideArgument`` values only
/// let the attribute type-check.
///
/// - Parameters:
///   - description: What the property holds, for the model (the property schema's `description`).
///   - guides: Constraints on the property's values.
@attached(peer)
public macro Guide(description: String? = nil, _ guides: GuideArgument...) =
  #externalMacro(module: "HybridAIMacros", type: "GuideMacro")
