import Testing

@Suite("@Generable on structs")
struct GenerableMacroTests {
  @Test("a struct with guides, an optional, an array and a nested @Generable type")
  func structWithGuides() async throws {
    try await assertExpansion(
      """
      @Generable(description: "A recipe")
      struct Recipe {
        @Guide(description: "A short title") var title: String
        @Guide(description: "Stars", .range(1...5)) var rating: Int
        @Guide(.range(1...5)) var difficulty: Int?
        @Guide(.count(2...4), .element(.pattern("[a-z]+"))) var tags: [String]
        var ingredients: [Ingredient]
        var main: Ingredient?
        var summary: String { title }
        let source: String = "web"
        static var count = 0
      }

      @Generable struct Ingredient { var name: String }
      """,
      ignoringExpansionsOf: ["Ingredient"],
      generates: [
        """
        extension Recipe: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Recipe",
                    description: "A recipe",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "title", description: "A short title", type: String.self),
                        HybridAI.GenerationSchema.Property(name: "rating", description: "Stars", type: Int.self, guides: [.range(1 ... 5)]),
                        HybridAI.GenerationSchema.Property(name: "difficulty", type: Int.self, isOptional: true, guides: [.range(1 ... 5)]),
                        HybridAI.GenerationSchema.Property(name: "tags", type: [String].self, guides: [.count(2 ... 4), .element(.pattern("[a-z]+"))]),
                        HybridAI.GenerationSchema.Property(name: "ingredients", type: [Ingredient].self),
                        HybridAI.GenerationSchema.Property(name: "main", type: Ingredient.self, isOptional: true),
                    ]
                )
            }

            init(_ content: HybridAI.GeneratedContent) throws {
                self.title = try content.value(forProperty: "title")
                self.rating = try content.value(forProperty: "rating")
                self.difficulty = try content.value(forProperty: "difficulty")
                self.tags = try content.value(forProperty: "tags")
                self.ingredients = try content.value(forProperty: "ingredients")
                self.main = try content.value(forProperty: "main")
            }

            var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "title": self.title,
                    "rating": self.rating,
                    "difficulty": self.difficulty,
                    "tags": self.tags,
                    "ingredients": self.ingredients,
                    "main": self.main,
                ])
            }

            /// A partially generated `Recipe`: every property is `nil` until its value has been generated.
            struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                var title: String?
                var rating: Int?
                var difficulty: Int?
                var tags: [String]?
                var ingredients: [Ingredient.PartiallyGenerated]?
                var main: Ingredient.PartiallyGenerated?

                init(title: String? = nil, rating: Int? = nil, difficulty: Int? = nil, tags: [String]? = nil, ingredients: [Ingredient.PartiallyGenerated]? = nil, main: Ingredient.PartiallyGenerated? = nil) {
                    self.title = title
                    self.rating = rating
                    self.difficulty = difficulty
                    self.tags = tags
                    self.ingredients = ingredients
                    self.main = main
                }

                init(_ content: HybridAI.GeneratedContent) {
                    self.title = try? content.value(forProperty: "title")
                    self.rating = try? content.value(forProperty: "rating")
                    self.difficulty = try? content.value(forProperty: "difficulty")
                    self.tags = try? content.value(forProperty: "tags")
                    self.ingredients = try? content.value(forProperty: "ingredients")
                    self.main = try? content.value(forProperty: "main")
                }
            }
        }
        """,
      ])
  }

  @Test("a public type gets public members")
  func publicType() async throws {
    try await assertExpansion(
      """
      @Generable
      public struct Point {
        public var x: Double
        public var y: Double
      }
      """,
      generates: [
        """
        extension Point: HybridAI.Generable {
            public static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Point",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "x", type: Double.self),
                        HybridAI.GenerationSchema.Property(name: "y", type: Double.self),
                    ]
                )
            }

            public init(_ content: HybridAI.GeneratedContent) throws {
                self.x = try content.value(forProperty: "x")
                self.y = try content.value(forProperty: "y")
            }

            public var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "x": self.x,
                    "y": self.y,
                ])
            }

            /// A partially generated `Point`: every property is `nil` until its value has been generated.
            public struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                public var x: Double?
                public var y: Double?

                public init(x: Double? = nil, y: Double? = nil) {
                    self.x = x
                    self.y = y
                }

                public init(_ content: HybridAI.GeneratedContent) {
                    self.x = try? content.value(forProperty: "x")
                    self.y = try? content.value(forProperty: "y")
                }
            }
        }
        """,
      ])
  }

  @Test("a package type gets package members")
  func packageType() async throws {
    try await assertExpansion(
      """
      @Generable
      package struct Tag {
        var name: String
      }
      """,
      generates: [
        """
        extension Tag: HybridAI.Generable {
            package static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Tag",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "name", type: String.self),
                    ]
                )
            }

            package init(_ content: HybridAI.GeneratedContent) throws {
                self.name = try content.value(forProperty: "name")
            }

            package var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "name": self.name,
                ])
            }

            /// A partially generated `Tag`: every property is `nil` until its value has been generated.
            package struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                package var name: String?

                package init(name: String? = nil) {
                    self.name = name
                }

                package init(_ content: HybridAI.GeneratedContent) {
                    self.name = try? content.value(forProperty: "name")
                }
            }
        }
        """,
      ])
  }

  @Test("a nested type is extended by its qualified name")
  func nestedType() async throws {
    try await assertExpansion(
      """
      enum Outer {
        @Generable
        struct Inner {
          var value: Int
        }
      }
      """,
      generates: [
        """
        extension Outer.Inner: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Inner",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "value", type: Int.self),
                    ]
                )
            }

            init(_ content: HybridAI.GeneratedContent) throws {
                self.value = try content.value(forProperty: "value")
            }

            var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "value": self.value,
                ])
            }

            /// A partially generated `Inner`: every property is `nil` until its value has been generated.
            struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                var value: Int?

                init(value: Int? = nil) {
                    self.value = value
                }

                init(_ content: HybridAI.GeneratedContent) {
                    self.value = try? content.value(forProperty: "value")
                }
            }
        }
        """,
      ])
  }

  @Test("an empty struct")
  func emptyStruct() async throws {
    try await assertExpansion(
      """
      @Generable struct Empty {}
      """,
      generates: [
        """
        extension Empty: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Empty",
                    properties: []
                )
            }

            init(_ content: HybridAI.GeneratedContent) throws {
            }

            var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [:])
            }

            /// A partially generated `Empty`: every property is `nil` until its value has been generated.
            struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                init() {
                }

                init(_ content: HybridAI.GeneratedContent) {
                }
            }
        }
        """,
      ])
  }

  @Test("nested arrays and optionals, generic spellings, several bindings, escaped names")
  func typeSpellings() async throws {
    try await assertExpansion(
      """
      @Generable
      struct Shapes {
        var matrix: [[Int]]
        var maybeList: [String?]?
        var generic: Array<Outer.Inner>
        var wrapped: Optional<Swift.String>
        var a, b: Int8
        var `default`: Bool
        var observed: Float { didSet { print(observed) } }
      }

      enum Outer { @Generable struct Inner {} }
      """,
      ignoringExpansionsOf: ["Outer.Inner"],
      generates: [
        """
        extension Shapes: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "Shapes",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "matrix", type: [[Int]].self),
                        HybridAI.GenerationSchema.Property(name: "maybeList", type: [String?].self, isOptional: true),
                        HybridAI.GenerationSchema.Property(name: "generic", type: Array<Outer.Inner>.self),
                        HybridAI.GenerationSchema.Property(name: "wrapped", type: Swift.String.self, isOptional: true),
                        HybridAI.GenerationSchema.Property(name: "a", type: Int8.self),
                        HybridAI.GenerationSchema.Property(name: "b", type: Int8.self),
                        HybridAI.GenerationSchema.Property(name: "default", type: Bool.self),
                        HybridAI.GenerationSchema.Property(name: "observed", type: Float.self),
                    ]
                )
            }

            init(_ content: HybridAI.GeneratedContent) throws {
                self.matrix = try content.value(forProperty: "matrix")
                self.maybeList = try content.value(forProperty: "maybeList")
                self.generic = try content.value(forProperty: "generic")
                self.wrapped = try content.value(forProperty: "wrapped")
                self.a = try content.value(forProperty: "a")
                self.b = try content.value(forProperty: "b")
                self.`default` = try content.value(forProperty: "default")
                self.observed = try content.value(forProperty: "observed")
            }

            var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "matrix": self.matrix,
                    "maybeList": self.maybeList,
                    "generic": self.generic,
                    "wrapped": self.wrapped,
                    "a": self.a,
                    "b": self.b,
                    "default": self.`default`,
                    "observed": self.observed,
                ])
            }

            /// A partially generated `Shapes`: every property is `nil` until its value has been generated.
            struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                var matrix: [[Int]]?
                var maybeList: [String?]?
                var generic: [Outer.Inner.PartiallyGenerated]?
                var wrapped: Swift.String?
                var a: Int8?
                var b: Int8?
                var `default`: Bool?
                var observed: Float?

                init(matrix: [[Int]]? = nil, maybeList: [String?]? = nil, generic: [Outer.Inner.PartiallyGenerated]? = nil, wrapped: Swift.String? = nil, a: Int8? = nil, b: Int8? = nil, `default`: Bool? = nil, observed: Float? = nil) {
                    self.matrix = matrix
                    self.maybeList = maybeList
                    self.generic = generic
                    self.wrapped = wrapped
                    self.a = a
                    self.b = b
                    self.`default` = `default`
                    self.observed = observed
                }

                init(_ content: HybridAI.GeneratedContent) {
                    self.matrix = try? content.value(forProperty: "matrix")
                    self.maybeList = try? content.value(forProperty: "maybeList")
                    self.generic = try? content.value(forProperty: "generic")
                    self.wrapped = try? content.value(forProperty: "wrapped")
                    self.a = try? content.value(forProperty: "a")
                    self.b = try? content.value(forProperty: "b")
                    self.`default` = try? content.value(forProperty: "default")
                    self.observed = try? content.value(forProperty: "observed")
                }
            }
        }
        """,
      ])
  }
}
