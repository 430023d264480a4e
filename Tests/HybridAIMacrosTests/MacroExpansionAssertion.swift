import HybridAIMacroExpansions
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, as the compiler sees them (`@Generable` adds a `Generable` conformance).
let hybridAIMacros: [String: MacroSpec] = [
  "Generable": MacroSpec(type: GenerableMacro.self, conformances: ["Generable"]),
  "Guide": MacroSpec(type: GuideMacro.self),
]

/// `assertMacroExpansion` for Swift Testing: expands `source` with HybridAI's macros and records
/// an issue, at the caller's location, for every difference from `expandedSource`, `diagnostics`
/// or (when given) `fixedSource`, the source with the diagnostics' fix-its applied.
func assertExpansion(
  _ source: String,
  expandedSource: String,
  diagnostics: [DiagnosticSpec] = [],
  fixedSource: String? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  assertMacroExpansion(
    source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: hybridAIMacros,
    fixedSource: fixedSource,
    failureHandler: { failure in
      Issue.record(
        Comment(rawValue: failure.message),
        sourceLocation: SourceLocation(
          fileID: failure.location.fileID, filePath: failure.location.filePath,
          line: failure.location.line, column: failure.location.column))
    },
    fileID: fileID, filePath: filePath, line: line, column: column)
}
