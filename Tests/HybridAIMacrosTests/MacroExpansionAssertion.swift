import Testing

/// An error or warning a test expects in its source, with the messages of its fix-its.
struct DiagnosticSpec: CustomStringConvertible {
  enum Severity: String {
    case error, warning
  }

  var message: String
  var line: Int
  var column: Int
  var severity = Severity.error
  /// The macro expected to emit it, `nil` for the compiler's own diagnostics (a source that is
  /// wrong apart from what the macro reports, e.g. a recursive struct).
  var macro: String? = "Generable"
  var fixIts: [FixItSpec] = []
  /// The messages of other notes (the compiler's, e.g. where a cycle begins).
  var notes: [String] = []

  var description: String {
    CompilerDiagnostic(file: MacroCompiler.sourceFileName, line: line, column: column, severity: severity.rawValue,
                       message: message, macro: macro,
                       notes: (fixIts.map(\.message) + notes).map {
                         CompilerDiagnostic(file: MacroCompiler.sourceFileName, line: line, column: column,
                                            severity: "note", message: $0, macro: macro)
                       }).description
  }

  func matches(_ diagnostic: CompilerDiagnostic) -> Bool {
    diagnostic.file == MacroCompiler.sourceFileName && diagnostic.line == line && diagnostic.column == column
      && diagnostic.severity == severity.rawValue && diagnostic.message == message && diagnostic.macro == macro
      && diagnostic.notes.map(\.message) == fixIts.map(\.message) + notes
  }
}

/// A fix-it a test expects, by its message (its edit is checked through `fixedSource`).
struct FixItSpec {
  var message: String
}

/// Type-checks `source` with HybridAI's macros (``MacroCompiler``) and records an issue, at the
/// caller's location, for every difference from the code the macros are expected to generate (in
/// the order the compiler expands them; but for the `helperTypes` a source declares after the
/// type under test because it names them), from the diagnostics (all of them: the macros' and the
/// compiler's, so a test's source declares every type it names), and, when given, from
/// `fixedSource`: the source with every fix-it's edit applied.
func assertExpansion(
  _ source: String,
  ignoringExpansionsOf helperTypes: [String] = [],
  generates expansions: [String] = [],
  diagnostics: [DiagnosticSpec] = [],
  fixedSource: String? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  let report = try await MacroCompiler.typeCheck(source)
  let context = Comment(rawValue: "compiler output:\n\(report.output)")
  let generated = report.expansions.filter { code in !helperTypes.contains { code.hasPrefix("extension \($0):") } }
  #expect(generated == expansions, context, sourceLocation: sourceLocation)
  let unexpected = report.diagnostics.filter { found in !diagnostics.contains { $0.matches(found) } }
  let missing = diagnostics.filter { spec in !report.diagnostics.contains { spec.matches($0) } }
  #expect(unexpected.isEmpty, "unexpected diagnostics:\n\(unexpected.map(\.description).joined(separator: "\n"))",
          sourceLocation: sourceLocation)
  #expect(missing.isEmpty, "missing diagnostics:\n\(missing.map(\.description).joined(separator: "\n"))\n\(context.rawValue)",
          sourceLocation: sourceLocation)
  #expect(report.diagnostics.count == diagnostics.count, context, sourceLocation: sourceLocation)
  guard let fixedSource else { return }
  let unshown = report.diagnostics.filter { $0.macro != nil }.flatMap(\.notes).filter { $0.edit == nil }
  #expect(unshown.isEmpty, """
    the compiler did not show these fix-its' edits (it shows an edit on the line the diagnostic points at): \
    \(unshown.map(\.description))
    """, sourceLocation: sourceLocation)
  #expect(MacroCompiler.applyingFixIts(of: report.diagnostics, to: source) == fixedSource, context,
          sourceLocation: sourceLocation)
}
