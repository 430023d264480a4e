import Testing

/// The errors and warnings of `@Generable`, with their exact messages, positions and fix-its.
/// A type with errors gets no extension: its expansion is the type without the attributes.
@Suite("@Generable diagnostics")
struct GenerableDiagnosticsTests {
  private let dictionaryReason =
    "dictionaries can't be generated; use an array of a @Generable struct with key and value properties"
  private let existentialReason = "existential and opaque types can't be generated; use a concrete @Generable type"

  @Test("dictionaries, in any spelling and nested")
  func dictionaries() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        var a: [String: Int]
        var b: Dictionary<String, Int>
        var c: [[String: Int]]?
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable does not support '[String: Int]': \(dictionaryReason)", line: 3, column: 10),
        DiagnosticSpec(message: "@Generable does not support 'Dictionary<String, Int>': \(dictionaryReason)", line: 4, column: 10),
        DiagnosticSpec(message: "@Generable does not support '[String: Int]': \(dictionaryReason)", line: 5, column: 11),
      ])
  }

  @Test("tuples, functions, Any, any P, some P and metatypes")
  func structuralTypes() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        var a: (Int, String)
        var b: () -> Void
        var c: @Sendable (Int) -> Int
        var d: Any
        var e: any Sendable
        var f: some Sendable
        var g: [any Codable & Sendable]
        var h: Int.Type
        var i: (Int)
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable does not support '(Int, String)': tuples can't be generated; use a @Generable struct", line: 3, column: 10),
        DiagnosticSpec(message: "@Generable does not support '() -> Void': functions can't be generated", line: 4, column: 10),
        DiagnosticSpec(message: "@Generable does not support '(Int) -> Int': functions can't be generated", line: 5, column: 20),
        DiagnosticSpec(message: "@Generable does not support 'Any': \(existentialReason)", line: 6, column: 10),
        DiagnosticSpec(message: "@Generable does not support 'any Sendable': \(existentialReason)", line: 7, column: 10),
        DiagnosticSpec(message: "@Generable does not support 'some Sendable': \(existentialReason)", line: 8, column: 10),
        DiagnosticSpec(
          message: "property declares an opaque return type, but has no initializer expression from which to infer an underlying type",
          line: 8, column: 7, macro: nil),
        DiagnosticSpec(message: "@Generable does not support 'any Codable & Sendable': \(existentialReason)", line: 9, column: 11),
        DiagnosticSpec(message: "@Generable does not support 'Int.Type': metatypes can't be generated", line: 10, column: 10),
      ])
  }

  @Test("Foundation types, Set and implicitly unwrapped optionals, with replacements as fix-its")
  func replaceableTypes() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        var a: Date
        var b: URL?
        var c: [Data]
        var d: UUID
        var e: Decimal
        var f: Foundation.Date
        var g: Set<String>
        var h: Int!
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable does not support 'Date': use a String (an ISO 8601 date) and convert it", line: 3, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'Date' with 'String'")]),
        DiagnosticSpec(message: "@Generable does not support 'URL': use a String and convert it", line: 4, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'URL' with 'String'")]),
        DiagnosticSpec(message: "@Generable does not support 'Data': use a String (Base64) and convert it", line: 5, column: 11,
                       fixIts: [FixItSpec(message: "Replace 'Data' with 'String'")]),
        DiagnosticSpec(message: "@Generable does not support 'UUID': use a String and convert it", line: 6, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'UUID' with 'String'")]),
        DiagnosticSpec(message: "@Generable does not support 'Decimal': use a Double", line: 7, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'Decimal' with 'Double'")]),
        DiagnosticSpec(message: "@Generable does not support 'Foundation.Date': use a String (an ISO 8601 date) and convert it",
                       line: 8, column: 10, fixIts: [FixItSpec(message: "Replace 'Foundation.Date' with 'String'")]),
        DiagnosticSpec(message: "@Generable does not support 'Set<String>': use an array", line: 9, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'Set<String>' with '[String]'")]),
        DiagnosticSpec(message: "@Generable does not support 'Int!': use an optional", line: 10, column: 10,
                       fixIts: [FixItSpec(message: "Replace 'Int!' with 'Int?'")]),
      ],
      fixedSource: """
      @Generable
      struct S {
        var a: String
        var b: String?
        var c: [String]
        var d: String
        var e: Double
        var f: String
        var g: [String]
        var h: Int?
      }
      """)
  }

  @Test("stored properties without a type annotation; literals get a fix-it")
  func missingTypeAnnotations() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        var a = 3
        var b = "x"
        var c = -2.5
        var d = [true, false]
        var e = makeValue()
      }

      func makeValue() -> Int { 0 }
      """,
      diagnostics: [
        DiagnosticSpec(message: "'a' needs a type annotation: @Generable reads the type from the declaration", line: 3, column: 7,
                       fixIts: [FixItSpec(message: "Add the type annotation ': Int'")]),
        DiagnosticSpec(message: "'b' needs a type annotation: @Generable reads the type from the declaration", line: 4, column: 7,
                       fixIts: [FixItSpec(message: "Add the type annotation ': String'")]),
        DiagnosticSpec(message: "'c' needs a type annotation: @Generable reads the type from the declaration", line: 5, column: 7,
                       fixIts: [FixItSpec(message: "Add the type annotation ': Double'")]),
        DiagnosticSpec(message: "'d' needs a type annotation: @Generable reads the type from the declaration", line: 6, column: 7,
                       fixIts: [FixItSpec(message: "Add the type annotation ': [Bool]'")]),
        DiagnosticSpec(message: "'e' needs a type annotation: @Generable reads the type from the declaration", line: 7, column: 7),
      ],
      fixedSource: """
      @Generable
      struct S {
        var a: Int = 3
        var b: String = "x"
        var c: Double = -2.5
        var d: [Bool] = [true, false]
        var e = makeValue()
      }

      func makeValue() -> Int { 0 }
      """)
  }

  @Test("a tuple pattern")
  func tuplePattern() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        var (x, y): (Int, Int)
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable does not support tuple patterns: declare one property per name", line: 3, column: 7),
      ])
  }

  @Test("a class or an actor is an error with a fix-it to make it a struct")
  func classAndActor() async throws {
    try await assertExpansion(
      """
      @Generable final class C {
        var a: Int = 0
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable applies to a struct or an enum, not to a class", line: 1, column: 1,
                       fixIts: [FixItSpec(message: "Replace 'class' with 'struct'")]),
      ],
      fixedSource: """
      @Generable final struct C {
        var a: Int = 0
      }
      """)
    try await assertExpansion(
      """
      @Generable(description: "A counter") actor Counter {
        var count: Int = 0
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable applies to a struct or an enum, not to an actor", line: 1, column: 1,
                       fixIts: [FixItSpec(message: "Replace 'actor' with 'struct'")]),
      ],
      fixedSource: """
      @Generable(description: "A counter") struct Counter {
        var count: Int = 0
      }
      """)
  }

  @Test("a protocol is an error")
  func protocolDeclaration() async throws {
    try await assertExpansion(
      """
      @Generable
      protocol P {
        var a: Int { get }
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable applies to a struct or an enum, not to a protocol", line: 1, column: 1),
      ])
  }

  @Test("enum cases with unsupported associated values")
  func enumAssociatedValues() async throws {
    try await assertExpansion(
      """
      @Generable
      indirect enum E {
        case a([String: Int])
        case b(when: Date)
        case c(case: String)
        case d(next: E?)
        case e(handler: () -> Void)
        case f(Int, String)
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "@Generable does not support '[String: Int]': \(dictionaryReason)", line: 3, column: 10),
        DiagnosticSpec(message: "@Generable does not support 'Date': use a String (an ISO 8601 date) and convert it", line: 4, column: 16,
                       fixIts: [FixItSpec(message: "Replace 'Date' with 'String'")]),
        DiagnosticSpec(
          message: #"an associated value of 'c' can't be labelled 'case': @Generable names the case in the "case" property"#,
          line: 5, column: 10),
        DiagnosticSpec(message: "'d.next: E?' contains the type itself: @Generable does not support recursive types", line: 6, column: 16),
        DiagnosticSpec(message: "@Generable does not support '() -> Void': functions can't be generated", line: 7, column: 19),
      ])
  }

  @Test("a struct holding itself")
  func recursiveStruct() async throws {
    try await assertExpansion(
      """
      @Generable
      struct Tree {
        var children: [Tree]
        var parent: Self?
      }
      """,
      diagnostics: [
        DiagnosticSpec(message: "'children: [Tree]' contains the type itself: @Generable does not support recursive types", line: 3, column: 17),
        DiagnosticSpec(message: "'parent: Self?' contains the type itself: @Generable does not support recursive types", line: 4, column: 15),
        DiagnosticSpec(message: "value type 'Tree' cannot have a stored property that recursively contains it", line: 4, column: 7,
                       macro: nil, notes: ["cycle beginning here: Tree? -> (some(_:): Tree)"]),
      ])
  }

  @Test("guides that don't fit the property's type, and guides not written inline")
  func misplacedGuides() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        @Guide(.count(3)) var name: String
        @Guide(.anyOf(["a"])) var number: Int?
        @Guide(description: "on", .range(1...5)) var flag: Bool
        @Guide(.element(.pattern("x"))) var numbers: [Int]
        @Guide(GuideArgument.range(1...5)) var a: Int
        @Guide(myGuide) var b: Int
        @Guide(.range(1...5)) var c: Custom
      }

      let myGuide = GuideArgument.range(1...5)
      struct Custom {}
      """,
      diagnostics: [
        DiagnosticSpec(message: "'.count' applies to arrays, not to 'String'", line: 3, column: 10),
        DiagnosticSpec(message: "'.anyOf' applies to strings, not to 'Int'", line: 4, column: 10),
        DiagnosticSpec(message: "'.range' applies to numbers, not to 'Bool'", line: 5, column: 29),
        DiagnosticSpec(message: "'.pattern' applies to strings, not to 'Int'", line: 6, column: 19),
        DiagnosticSpec(
          message: "write the guide 'GuideArgument.range(1...5)' inline, as '.name(arguments)': @Generable copies it into the schema",
          line: 7, column: 10, fixIts: [FixItSpec(message: "Remove 'GuideArgument'")]),
        DiagnosticSpec(
          message: "write the guide 'myGuide' inline, as '.name(arguments)': @Generable copies it into the schema",
          line: 8, column: 10),
      ],
      fixedSource: """
      @Generable
      struct S {
        @Guide(.count(3)) var name: String
        @Guide(.anyOf(["a"])) var number: Int?
        @Guide(description: "on", .range(1...5)) var flag: Bool
        @Guide(.element(.pattern("x"))) var numbers: [Int]
        @Guide(.range(1...5)) var a: Int
        @Guide(myGuide) var b: Int
        @Guide(.range(1...5)) var c: Custom
      }

      let myGuide = GuideArgument.range(1...5)
      struct Custom {}
      """)
  }

  @Test("a @Guide on a property that is not generated is a warning")
  func ignoredGuides() async throws {
    try await assertExpansion(
      """
      @Generable
      struct S {
        @Guide(description: "x") static var a: Int = 0
        @Guide(description: "x") var b: Int { 1 }
        @Guide(description: "x") let c: Int = 1
        @Guide(description: "x") lazy var d: Int = 1
        var e: Int
      }
      """,
      generates: [
        """
        extension S: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.object(
                    name: "S",
                    properties: [
                        HybridAI.GenerationSchema.Property(name: "e", type: Int.self),
                    ]
                )
            }

            init(_ content: HybridAI.GeneratedContent) throws {
                self.e = try content.value(forProperty: "e")
            }

            var generatedContent: HybridAI.GeneratedContent {
                HybridAI.GeneratedContent(properties: [
                    "e": self.e,
                ])
            }

            /// A partially generated `S`: every property is `nil` until its value has been generated.
            struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
                var e: Int?

                init(e: Int? = nil) {
                    self.e = e
                }

                init(_ content: HybridAI.GeneratedContent) {
                    self.e = try? content.value(forProperty: "e")
                }
            }
        }
        """,
      ],
      diagnostics: [
        DiagnosticSpec(message: "@Guide has no effect on a static property: it is not generated", line: 3, column: 3, severity: .warning),
        DiagnosticSpec(message: "@Guide has no effect on a computed property: it is not generated", line: 4, column: 3, severity: .warning),
        DiagnosticSpec(message: "@Guide has no effect on a 'let' constant with an initial value: it is not generated", line: 5, column: 3,
                       severity: .warning),
        DiagnosticSpec(message: "@Guide has no effect on a lazy property: it is not generated", line: 6, column: 3, severity: .warning),
      ])
  }
}
