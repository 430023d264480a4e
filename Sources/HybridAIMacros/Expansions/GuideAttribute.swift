import SwiftDiagnostics
import SwiftSyntax

/// The `@Guide` attributes of a property, read syntactically: a description and guides.
struct GuideAttribute {
  /// The `description:` argument, verbatim (as written in the source: trim it to copy it).
  var description: ExprSyntax?
  /// The guides, in the order written.
  var guides: [Guide]
  /// The attributes, for diagnostics.
  var attributes: [AttributeSyntax]

  /// One guide: `.name(arguments)`, with the guide of `.element(…)` read too.
  struct Guide {
    let name: String
    /// The expression as written in the source (trim it to copy it).
    let expression: ExprSyntax
    /// The guide of `.element(…)` (one at most).
    let elementGuides: [Guide]
  }

  /// Reads the `@Guide` attributes in `attributes` (none: an empty description and no guides).
  init(_ attributes: AttributeListSyntax, diagnostics: inout [Diagnostic]) {
    self.description = nil
    self.guides = []
    self.attributes = []
    for element in attributes {
      guard case .attribute(let attribute) = element, Self.isGuide(attribute) else { continue }
      self.attributes.append(attribute)
      guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) else { continue }
      for argument in arguments {
        if argument.label?.text == "description" {
          description = argument.expression
        } else if let guide = Self.read(argument.expression, diagnostics: &diagnostics) {
          guides.append(guide)
        }
      }
    }
  }

  var isEmpty: Bool { attributes.isEmpty }

  private static func isGuide(_ attribute: AttributeSyntax) -> Bool {
    let name = attribute.attributeName.trimmedDescription
    return name == "Guide" || name == "HybridAI.Guide"
  }

  /// Reads a guide written `.name(arguments)`; anything else is diagnosed (the expression is copied
  /// into the schema, where it must be a `GenerationGuide` factory call).
  private static func read(_ expression: ExprSyntax, diagnostics: inout [Diagnostic]) -> Guide? {
    guard let call = expression.as(FunctionCallExprSyntax.self),
          let member = call.calledExpression.as(MemberAccessExprSyntax.self) else {
      diagnostics.append(Diagnostic(node: expression, message: GenerableDiagnostic.guideNotInline(expression.trimmedDescription)))
      return nil
    }
    if let base = member.base {
      let inline = call.with(\.calledExpression, ExprSyntax(member.with(\.base, nil)))
      diagnostics.append(Diagnostic(
        node: expression, message: GenerableDiagnostic.guideNotInline(expression.trimmedDescription),
        fixIts: [FixIt(message: GenerableFixIt(message: "Remove '\(base.trimmedDescription)'"),
                       changes: [.replace(oldNode: Syntax(call), newNode: Syntax(inline))])]))
      return nil
    }
    let name = member.declName.baseName.text
    var elementGuides: [Guide] = []
    if name == "element" {
      guard let argument = call.arguments.first?.expression,
            let nested = read(argument, diagnostics: &diagnostics) else { return nil }
      elementGuides = [nested]
    }
    return Guide(name: name, expression: expression, elementGuides: elementGuides)
  }

  /// Diagnoses guides that don't fit `type` (`.count` on a `String`); `true` when all fit.
  static func check(_ guides: [Guide], against type: GenerableType, diagnostics: inout [Diagnostic]) -> Bool {
    guard let target = type.guideTarget else { return true }
    var fits = true
    for guide in guides {
      let applies: String?
      switch guide.name {
      case "anyOf", "constant", "pattern": applies = "strings"
      case "minimum", "maximum", "range": applies = "numbers"
      case "count", "minimumCount", "maximumCount", "element": applies = "arrays"
      default: applies = nil
      }
      guard let applies else { continue }
      switch (applies, target) {
      case ("strings", .strings), ("numbers", .numbers): continue
      case ("arrays", .arrays(let element)):
        fits = check(guide.elementGuides, against: element, diagnostics: &diagnostics) && fits
        continue
      default:
        fits = false
        diagnostics.append(Diagnostic(
          node: guide.expression,
          message: GenerableDiagnostic.guideDoesNotApply(guide.name, applies: applies, type: type.schemaType.syntax.description)))
      }
    }
    return fits
  }
}
