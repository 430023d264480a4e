import SwiftDiagnostics
import SwiftSyntax

/// The members `@Generable` adds to an enum.
///
/// When no case has associated values the enum is a string: one of the case names (raw values
/// are ignored). Otherwise every case is an object `{"case": "name", …}` whose other properties
/// are the associated values, named by their labels (`_0`, `_1`, … when unlabelled).
struct EnumExpansion {
  /// One case of the enum.
  struct Case {
    /// The case name as JSON (no backticks).
    let name: String
    /// The case name as written in Swift.
    let identifier: String
    let values: [AssociatedValue]
  }

  /// One associated value of a case.
  struct AssociatedValue {
    /// The property name: the label, or `_<index>`.
    let name: String
    /// The label as written in Swift, if any.
    let label: String?
    let type: GenerableType
  }

  let typeName: String
  let description: String?
  let access: String
  let cases: [Case]

  /// Reads `declaration`; `nil` when its cases have errors (appended to `diagnostics`).
  /// `qualifiedName` is the type as the extension names it (`Outer.Inner`).
  init?(_ declaration: EnumDeclSyntax, qualifiedName: String, description: String?, diagnostics: inout [Diagnostic]) {
    let selfNames: Set<String> = [declaration.name.text, "Self", qualifiedName]
    var cases: [Case] = []
    var valid = true
    for member in declaration.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        let name = element.name.identifier?.name ?? element.name.text
        var values: [AssociatedValue] = []
        for (index, parameter) in (element.parameterClause?.parameters ?? []).enumerated() {
          let labelToken = parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0 }
          let label = labelToken.map { $0.identifier?.name ?? $0.text }
          if label == "case" {
            diagnostics.append(Diagnostic(node: parameter, message: GenerableDiagnostic.associatedValueNamedCase(name)))
            valid = false
            continue
          }
          guard let type = GenerableType.read(parameter.type, diagnostics: &diagnostics) else {
            valid = false
            continue
          }
          guard !type.holds(anyOf: selfNames) else {
            diagnostics.append(Diagnostic(
              node: parameter.type,
              message: GenerableDiagnostic.recursiveType("\(name).\(label ?? "_\(index)")", type: parameter.type.trimmedDescription)))
            valid = false
            continue
          }
          values.append(AssociatedValue(name: label ?? "_\(index)", label: labelToken?.text, type: type))
        }
        cases.append(Case(name: name, identifier: element.name.text, values: values))
      }
    }
    guard valid else { return nil }
    self.cases = cases
    self.typeName = declaration.name.identifier?.name ?? declaration.name.text
    self.description = description
    self.access = generatedAccessModifier(of: declaration.modifiers)
  }

  /// Whether every case is plain (the enum is generated as a string).
  private var isStringEnum: Bool { cases.allSatisfy(\.values.isEmpty) }

  private var caseList: String { cases.map(\.name).joined(separator: ", ") }

  /// The members, as source text indented for the extension body.
  var members: String {
    isStringEnum
      ? [stringSchema, stringDecoding, stringContent].joined(separator: "\n")
      : [objectSchema, objectDecoding, objectContent].joined(separator: "\n")
  }

  private var schemaHeader: String {
    var arguments = ["name: \(stringLiteral(typeName))"]
    if let description { arguments.append("description: \(description)") }
    return arguments.joined(separator: ", ")
  }

  // MARK: - Plain cases: a string

  private var stringSchema: String {
    let choices = cases.map { stringLiteral($0.name) }.joined(separator: ", ")
    return """
        \(access)static var generationSchema: HybridAI.GenerationSchema {
            HybridAI.GenerationSchema.anyOf(\(schemaHeader), choices: [\(choices)])
        }

    """
  }

  private var stringDecoding: String {
    let branches = cases.map { "        case \(stringLiteral($0.name)):\n            self = .\($0.identifier)\n" }
    return """
        \(access)init(_ content: HybridAI.GeneratedContent) throws {
            switch try content.value(String.self) {
    \(branches.joined())        default:
                throw HybridAI.GeneratedContentError.invalidValue(content, reason: \(stringLiteral("expected one of: \(caseList)")))
            }
        }

    """
  }

  private var stringContent: String {
    let branches = cases.map {
      "        case .\($0.identifier):\n            HybridAI.GeneratedContent(kind: .string(\(stringLiteral($0.name))))\n"
    }
    return """
        \(access)var generatedContent: HybridAI.GeneratedContent {
            switch self {
    \(branches.joined())        }
        }

    """
  }

  // MARK: - Cases with values: objects

  private var objectSchema: String {
    let schemas = cases.map { enumCase in
      var properties = [
        "HybridAI.GenerationSchema.Property(name: \"case\", type: String.self, guides: [.constant(\(stringLiteral(enumCase.name)))])"
      ]
      for value in enumCase.values {
        var arguments = ["name: \(stringLiteral(value.name))", "type: \(value.type.schemaType.syntax).self"]
        if value.type.isOptional { arguments.append("isOptional: true") }
        properties.append("HybridAI.GenerationSchema.Property(\(arguments.joined(separator: ", ")))")
      }
      return "            HybridAI.GenerationSchema.object(properties: [\n"
        + properties.map { "                \($0),\n" }.joined()
        + "            ]),\n"
    }
    return """
        \(access)static var generationSchema: HybridAI.GenerationSchema {
            HybridAI.GenerationSchema.anyOf(\(schemaHeader), schemas: [
    \(schemas.joined())        ])
        }

    """
  }

  private var objectDecoding: String {
    let branches = cases.map { enumCase in
      let construction: String
      if enumCase.values.isEmpty {
        construction = "self = .\(enumCase.identifier)"
      } else {
        let arguments = enumCase.values.map { value in
          (value.label.map { "\($0): " } ?? "") + "content.value(forProperty: \(stringLiteral(value.name)))"
        }
        construction = "self = try .\(enumCase.identifier)(\(arguments.joined(separator: ", ")))"
      }
      return "        case \(stringLiteral(enumCase.name)):\n            \(construction)\n"
    }
    return """
        \(access)init(_ content: HybridAI.GeneratedContent) throws {
            let caseName = try content.value(String.self, forProperty: "case")
            switch caseName {
    \(branches.joined())        default:
                throw HybridAI.GeneratedContentError.inProperty(
                    "case",
                    .invalidValue(HybridAI.GeneratedContent(kind: .string(caseName)), reason: \(stringLiteral("expected one of: \(caseList)"))))
            }
        }

    """
  }

  private var objectContent: String {
    let branches = cases.map { enumCase in
      let bindings = enumCase.values.indices.map { "let value\($0)" }
      let pattern = bindings.isEmpty ? "" : "(\(bindings.joined(separator: ", ")))"
      let pairs = ["\"case\": \(stringLiteral(enumCase.name))"]
        + enumCase.values.enumerated().map { "\(stringLiteral($1.name)): value\($0)" }
      return "        case .\(enumCase.identifier)\(pattern):\n"
        + "            HybridAI.GeneratedContent(properties: [\(pairs.joined(separator: ", "))])\n"
    }
    return """
        \(access)var generatedContent: HybridAI.GeneratedContent {
            switch self {
    \(branches.joined())        }
        }

    """
  }
}
