import HybridAIMacroExpansions
import SwiftSyntax
import SwiftSyntaxMacros

// The compiler finds a macro by the module and type that its `#externalMacro` names, here
// `HybridAIMacros.GenerableMacro` and `HybridAIMacros.GuideMacro`, so the plugin module has these
// types; the expansions themselves are in HybridAIMacroExpansions, where tests can reach them.

/// `@Generable`, as the plugin provides it: expanded by `HybridAIMacroExpansions.GenerableMacro`.
public struct GenerableMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    try HybridAIMacroExpansions.GenerableMacro.expansion(
      of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
  }
}

/// `@Guide`, as the plugin provides it: expanded by `HybridAIMacroExpansions.GuideMacro`.
public struct GuideMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try HybridAIMacroExpansions.GuideMacro.expansion(of: node, providingPeersOf: declaration, in: context)
  }
}
