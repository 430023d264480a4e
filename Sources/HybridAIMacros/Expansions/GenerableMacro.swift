import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Generable`: an extension conforming a struct or an enum to `HybridAI.Generable`.
///
/// Structs are expanded by ``StructExpansion``, enums by ``EnumExpansion``; anything else is an
/// error. When the type has errors (an unsupported property type, a misplaced guide) the macro
/// reports them all and adds no extension.
public struct GenerableMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    let description = node.arguments?.as(LabeledExprListSyntax.self)?
      .first { $0.label?.text == "description" }?.expression.trimmedDescription
    var diagnostics: [Diagnostic] = []
    let members: String?
    if let structure = declaration.as(StructDeclSyntax.self) {
      members = StructExpansion(structure, qualifiedName: type.trimmedDescription, description: description, diagnostics: &diagnostics)?.members
    } else if let enumeration = declaration.as(EnumDeclSyntax.self) {
      members = EnumExpansion(enumeration, qualifiedName: type.trimmedDescription, description: description, diagnostics: &diagnostics)?.members
    } else {
      members = nil
      diagnostics.append(unsupportedDeclaration(declaration, attribute: node))
    }
    for diagnostic in diagnostics { context.diagnose(diagnostic) }
    guard let members, !diagnostics.contains(where: { $0.diagMessage.severity == .error }) else { return [] }

    let conformance = protocols.isEmpty ? "" : ": HybridAI.Generable"
    let source = "extension \(type.trimmedDescription)\(conformance) {\n\(members)}"
    guard let decl = DeclSyntax(stringLiteral: source).as(ExtensionDeclSyntax.self) else { return [] }
    return [decl]
  }

  /// The error for a class, an actor, a protocol or an extension (a class or an actor gets a
  /// fix-it that makes it a struct).
  private static func unsupportedDeclaration(_ declaration: some DeclGroupSyntax, attribute: AttributeSyntax) -> Diagnostic {
    let keyword: TokenSyntax?
    let kind: String
    if let decl = declaration.as(ClassDeclSyntax.self) {
      (keyword, kind) = (decl.classKeyword, "a class")
    } else if let decl = declaration.as(ActorDeclSyntax.self) {
      (keyword, kind) = (decl.actorKeyword, "an actor")
    } else if declaration.is(ProtocolDeclSyntax.self) {
      (keyword, kind) = (nil, "a protocol")
    } else if declaration.is(ExtensionDeclSyntax.self) {
      (keyword, kind) = (nil, "an extension")
    } else {
      (keyword, kind) = (nil, "this declaration")
    }
    var fixIts: [FixIt] = []
    if let keyword {
      let replacement = TokenSyntax.keyword(.struct, leadingTrivia: keyword.leadingTrivia, trailingTrivia: keyword.trailingTrivia)
      fixIts.append(FixIt(message: GenerableFixIt(message: "Replace '\(keyword.text)' with 'struct'"),
                          changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(replacement))]))
    }
    return Diagnostic(node: attribute, message: GenerableDiagnostic.unsupportedDeclaration(kind), fixIts: fixIts)
  }
}
