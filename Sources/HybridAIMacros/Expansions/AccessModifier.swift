import SwiftSyntax

/// The access modifier for the members `@Generable` generates, mirroring the type's: `public `
/// (for a public type), `package `, or nothing (internal, fileprivate and private types, whose
/// extension members default to the type's access).
func generatedAccessModifier(of modifiers: DeclModifierListSyntax) -> String {
  for modifier in modifiers {
    switch modifier.name.tokenKind {
    case .keyword(.public), .keyword(.open): return "public "
    case .keyword(.package): return "package "
    default: continue
    }
  }
  return ""
}
