import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides HybridAI's macros: `@Generable` and `@Guide`.
@main
struct HybridAIMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [GenerableMacro.self, GuideMacro.self]
}
