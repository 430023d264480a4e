import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// A stored property of a `@Generable` struct: one property of its schema.
struct StoredProperty {
  /// The JSON property name: the Swift name without backticks.
  let name: String
  /// The Swift identifier as written (with backticks where needed).
  let identifier: String
  let type: GenerableType
  let guide: GuideAttribute

  /// The stored properties of `members` that are generated, in declaration order, diagnosing
  /// those that can't be. Static, lazy and computed properties and `let` constants with an
  /// initial value are skipped (a `@Guide` on one of them is a warning). A property holding a
  /// type named one of `selfNames` (the struct itself) is an error.
  static func collect(from members: MemberBlockSyntax, selfNames: Set<String>,
                      diagnostics: inout [Diagnostic]) -> [StoredProperty] {
    var properties: [StoredProperty] = []
    for member in members.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
      let guide = GuideAttribute(variable.attributes, diagnostics: &diagnostics)

      func skip(_ what: String) {
        for attribute in guide.attributes {
          diagnostics.append(Diagnostic(node: attribute, message: GenerableDiagnostic.guideIgnored(what)))
        }
      }

      let modifiers = Set(variable.modifiers.map(\.name.text))
      if !modifiers.isDisjoint(with: ["static", "class"]) { skip("a static property"); continue }
      if modifiers.contains("lazy") { skip("a lazy property"); continue }
      let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
      let bindings = Array(variable.bindings)
      for (index, binding) in bindings.enumerated() {
        if isComputed(binding) { skip("a computed property"); continue }
        if isLet, binding.initializer != nil { skip("a 'let' constant with an initial value"); continue }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
          diagnostics.append(Diagnostic(node: binding.pattern, message: GenerableDiagnostic.tuplePattern))
          continue
        }
        let identifier = pattern.identifier
        let name = identifier.identifier?.name ?? identifier.text
        // `var a, b: Int`: `a` takes its type from the next annotated binding.
        let annotation = binding.typeAnnotation?.type
          ?? (binding.initializer == nil ? bindings[(index + 1)...].lazy.compactMap(\.typeAnnotation).first?.type : nil)
        guard let annotation else {
          diagnostics.append(missingTypeAnnotation(binding, name: name))
          continue
        }
        guard let type = GenerableType.read(annotation, diagnostics: &diagnostics) else { continue }
        guard !type.holds(anyOf: selfNames) else {
          diagnostics.append(Diagnostic(node: annotation, message: GenerableDiagnostic.recursiveType(name, type: annotation.trimmedDescription)))
          continue
        }
        guard GuideAttribute.check(guide.guides, against: type, diagnostics: &diagnostics) else { continue }
        properties.append(StoredProperty(name: name, identifier: identifier.text, type: type, guide: guide))
      }
    }
    return properties
  }

  /// Whether a binding has a getter (a computed property) rather than only observers.
  private static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
    switch binding.accessorBlock?.accessors {
    case nil: false
    case .getter: true
    case .accessors(let accessors):
      accessors.contains { accessor in
        !["willSet", "didSet", "init"].contains(accessor.accessorSpecifier.text)
      }
    }
  }

  /// The missing-annotation error, with a fix-it when the initial value is a literal.
  private static func missingTypeAnnotation(_ binding: PatternBindingSyntax, name: String) -> Diagnostic {
    var fixIts: [FixIt] = []
    if let value = binding.initializer?.value, let type = literalType(value) {
      let annotated = binding
        .with(\.pattern, binding.pattern.with(\.trailingTrivia, []))
        .with(\.typeAnnotation, TypeAnnotationSyntax(
          colon: .colonToken(trailingTrivia: .space),
          type: TypeSyntax(stringLiteral: type).with(\.trailingTrivia, binding.pattern.trailingTrivia)))
      fixIts.append(FixIt(message: GenerableFixIt(message: "Add the type annotation ': \(type)'"),
                          changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]))
    }
    return Diagnostic(node: binding.pattern, message: GenerableDiagnostic.missingTypeAnnotation(name), fixIts: fixIts)
  }

  /// The type of a literal initial value (`"a"`, `1`, `-2.5`, `true`, `[1, 2]`), if it is one.
  private static func literalType(_ expression: ExprSyntax) -> String? {
    if expression.is(StringLiteralExprSyntax.self) { return "String" }
    if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
    if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
    if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
    if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
      let type = literalType(prefix.expression)
      return type == "Int" || type == "Double" ? type : nil
    }
    if let array = expression.as(ArrayExprSyntax.self), let first = array.elements.first,
       let element = literalType(first.expression),
       array.elements.allSatisfy({ literalType($0.expression) == element }) {
      return "[\(element)]"
    }
    return nil
  }
}
