import SwiftSyntax
import SwiftSyntaxMacros

/// `@Guide`: generates nothing. `@Generable` reads the attribute's description and guides from
/// the property's syntax.
public struct GuideMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}
