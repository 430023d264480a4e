import Testing

@Suite("@Generable on enums")
struct GenerableEnumMacroTests {
  @Test("an enum without associated values is a string of its case names")
  func stringEnum() async throws {
    try await assertExpansion(
      """
      @Generable(description: "A colour")
      enum Colour: String {
        case red = "r", green
        case `default`
      }
      """,
      generates: [
        """
        extension Colour: HybridAI.Generable {
            static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.anyOf(name: "Colour", description: "A colour", choices: ["red", "green", "default"])
            }

            init(_ content: HybridAI.GeneratedContent) throws {
                switch try content.value(String.self) {
                case "red":
                    self = .red
                case "green":
                    self = .green
                case "default":
                    self = .`default`
                default:
                    throw HybridAI.GeneratedContentError.invalidValue(content, reason: "expected one of: red, green, default")
                }
            }

            var generatedContent: HybridAI.GeneratedContent {
                switch self {
                case .red:
                    HybridAI.GeneratedContent(kind: .string("red"))
                case .green:
                    HybridAI.GeneratedContent(kind: .string("green"))
                case .`default`:
                    HybridAI.GeneratedContent(kind: .string("default"))
                }
            }
        }
        """,
      ])
  }

  @Test("an enum with associated values is one object per case, tagged by its 'case' property")
  func associatedValues() async throws {
    try await assertExpansion(
      """
      @Generable
      public enum Shape {
        case circle(radius: Double)
        case point
        case pair(Int, label: String?)
        case group([Shape.Part])
      }

      extension Shape { @Generable public struct Part {} }
      """,
      ignoringExpansionsOf: ["Shape.Part"],
      generates: [
        """
        extension Shape: HybridAI.Generable {
            public static var generationSchema: HybridAI.GenerationSchema {
                HybridAI.GenerationSchema.anyOf(name: "Shape", schemas: [
                    HybridAI.GenerationSchema.object(properties: [
                        HybridAI.GenerationSchema.Property(name: "case", type: String.self, guides: [.constant("circle")]),
                        HybridAI.GenerationSchema.Property(name: "radius", type: Double.self),
                    ]),
                    HybridAI.GenerationSchema.object(properties: [
                        HybridAI.GenerationSchema.Property(name: "case", type: String.self, guides: [.constant("point")]),
                    ]),
                    HybridAI.GenerationSchema.object(properties: [
                        HybridAI.GenerationSchema.Property(name: "case", type: String.self, guides: [.constant("pair")]),
                        HybridAI.GenerationSchema.Property(name: "_0", type: Int.self),
                        HybridAI.GenerationSchema.Property(name: "label", type: String.self, isOptional: true),
                    ]),
                    HybridAI.GenerationSchema.object(properties: [
                        HybridAI.GenerationSchema.Property(name: "case", type: String.self, guides: [.constant("group")]),
                        HybridAI.GenerationSchema.Property(name: "_0", type: [Shape.Part].self),
                    ]),
                ])
            }

            public init(_ content: HybridAI.GeneratedContent) throws {
                let caseName = try content.value(String.self, forProperty: "case")
                switch caseName {
                case "circle":
                    self = try .circle(radius: content.value(forProperty: "radius"))
                case "point":
                    self = .point
                case "pair":
                    self = try .pair(content.value(forProperty: "_0"), label: content.value(forProperty: "label"))
                case "group":
                    self = try .group(content.value(forProperty: "_0"))
                default:
                    throw HybridAI.GeneratedContentError.inProperty(
                        "case",
                        .invalidValue(HybridAI.GeneratedContent(kind: .string(caseName)), reason: "expected one of: circle, point, pair, group"))
                }
            }

            public var generatedContent: HybridAI.GeneratedContent {
                switch self {
                case .circle(let value0):
                    HybridAI.GeneratedContent(properties: ["case": "circle", "radius": value0])
                case .point:
                    HybridAI.GeneratedContent(properties: ["case": "point"])
                case .pair(let value0, let value1):
                    HybridAI.GeneratedContent(properties: ["case": "pair", "_0": value0, "label": value1])
                case .group(let value0):
                    HybridAI.GeneratedContent(properties: ["case": "group", "_0": value0])
                }
            }
        }
        """,
      ])
  }
}
