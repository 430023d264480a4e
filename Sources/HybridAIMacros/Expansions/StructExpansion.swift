import SwiftDiagnostics
import SwiftSyntax

/// The members `@Generable` adds to a struct: the object schema, the decoding initializer, the
/// generated content, and the `PartiallyGenerated` struct.
struct StructExpansion {
  let typeName: String
  let description: String?
  let access: String
  let properties: [StoredProperty]

  /// Reads `declaration`; `nil` when its properties have errors (appended to `diagnostics`).
  /// `qualifiedName` is the type as the extension names it (`Outer.Inner`).
  init?(_ declaration: StructDeclSyntax, qualifiedName: String, description: String?, diagnostics: inout [Diagnostic]) {
    typeName = declaration.name.identifier?.name ?? declaration.name.text
    let errorsBefore = diagnostics.count { $0.diagMessage.severity == .error }
    properties = StoredProperty.collect(from: declaration.memberBlock, selfNames: [declaration.name.text, "Self", qualifiedName],
                                        diagnostics: &diagnostics)
    guard diagnostics.count(where: { $0.diagMessage.severity == .error }) == errorsBefore else { return nil }
    self.description = description
    access = generatedAccessModifier(of: declaration.modifiers)
  }

  /// The members, as source text indented for the extension body.
  var members: String {
    [generationSchema, decodingInitializer, generatedContent, partiallyGenerated].joined(separator: "\n")
  }

  private var generationSchema: String {
    var arguments = ["name: \(stringLiteral(typeName))"]
    if let description { arguments.append("description: \(description)") }
    let propertyLines = properties.map { "                \(schemaProperty($0)),\n" }
    arguments.append(properties.isEmpty ? "properties: []" : "properties: [\n\(propertyLines.joined())            ]")
    return """
        \(access)static var generationSchema: HybridAI.GenerationSchema {
            HybridAI.GenerationSchema.object(
                \(arguments.joined(separator: ",\n            "))
            )
        }

    """
  }

  private func schemaProperty(_ property: StoredProperty) -> String {
    var arguments = ["name: \(stringLiteral(property.name))"]
    if let description = property.guide.description { arguments.append("description: \(description.trimmedDescription)") }
    arguments.append("type: \(property.type.schemaType.syntax).self")
    if property.type.isOptional { arguments.append("isOptional: true") }
    if !property.guide.guides.isEmpty {
      arguments.append("guides: [\(property.guide.guides.map(\.expression.trimmedDescription).joined(separator: ", "))]")
    }
    return "HybridAI.GenerationSchema.Property(\(arguments.joined(separator: ", ")))"
  }

  private var decodingInitializer: String {
    let assignments = properties.map {
      "        self.\($0.identifier) = try content.value(forProperty: \(stringLiteral($0.name)))\n"
    }
    return """
        \(access)init(_ content: HybridAI.GeneratedContent) throws {
    \(assignments.joined())    }

    """
  }

  private var generatedContent: String {
    let pairs = properties.isEmpty
      ? "[:]"
      : "[\n" + properties.map { "            \(stringLiteral($0.name)): self.\($0.identifier),\n" }.joined() + "        ]"
    return """
        \(access)var generatedContent: HybridAI.GeneratedContent {
            HybridAI.GeneratedContent(properties: \(pairs))
        }

    """
  }

  private var partiallyGenerated: String {
    let declarations = properties.map { "        \(access)var \($0.identifier): \($0.type.optionalPartiallyGenerated)\n" }
    let parameters = properties.map { "\($0.identifier): \($0.type.optionalPartiallyGenerated) = nil" }
    let assignments = properties.map { "            self.\($0.identifier) = \($0.identifier)\n" }
    let storage = properties.isEmpty ? "" : declarations.joined() + "\n"
    let decodings = properties.map {
      "            self.\($0.identifier) = try? content.value(forProperty: \(stringLiteral($0.name)))\n"
    }
    return """
        /// A partially generated `\(typeName)`: every property is `nil` until its value has been generated.
        \(access)struct PartiallyGenerated: HybridAI.ConvertibleFromGeneratedContent, Sendable {
    \(storage)        \(access)init(\(parameters.joined(separator: ", "))) {
    \(assignments.joined())        }

            \(access)init(_ content: HybridAI.GeneratedContent) {
    \(decodings.joined())        }
        }

    """
  }
}
