import Foundation
import HybridAIProcess
import HybridAITestSupport

/// HybridAI's macros as the compiler runs them: `swiftc -typecheck` on a source file, with the
/// `HybridAI` and `Foundation` modules imported and the `@Generable` plug-in SwiftPM built for this
/// package loaded, printing every expansion. Using the compiler rather than swift-syntax's test support keeps a
/// second copy of swift-syntax (built for the tests) out of every cold build, tests the plug-in
/// the compiler really loads, and type-checks the code the macros generate.
enum MacroCompiler {
  /// What the compiler printed for one source.
  struct Report {
    /// The code each macro generated, in the order the compiler expanded them; empty expansions
    /// (`@Guide`, or `@Generable` on a type with errors) left out.
    var expansions: [String] = []
    /// Errors and warnings, each with its notes.
    var diagnostics: [CompilerDiagnostic] = []
    /// Everything the compiler printed, for a failure's message.
    var output = ""
  }

  /// A tool or build product the compiler needs is missing.
  struct MissingTool: Error, CustomStringConvertible {
    var description: String
  }

  /// The file name every source is compiled under (diagnostics name it).
  static let sourceFileName = "Source.swift"

  /// Type-checks `source` and returns the expansions and diagnostics.
  static func typeCheck(_ source: String) async throws -> Report {
    guard let swiftc = ChildProcess.locate("swiftc") else { throw MissingTool(description: "no swiftc in PATH") }
    let products = try TestRepository.builtProduct("Modules/HybridAI.swiftmodule")
      .deletingLastPathComponent().deletingLastPathComponent()
    let plugin = try TestRepository.builtProduct("HybridAIMacros-tool")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("macro-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent(sourceFileName)
    try Data(source.utf8).write(to: file)
    let outcome = try await ChildProcess.run(URL(fileURLWithPath: swiftc), [
      "-typecheck", "-I", products.appendingPathComponent("Modules").path,
      "-Xfrontend", "-import-module", "-Xfrontend", "HybridAI", "-Xfrontend", "-import-module", "-Xfrontend", "Foundation",
      "-package-name", "MacroTests",
      "-load-plugin-executable", "\(plugin.path)#HybridAIMacros",
      "-Xfrontend", "-dump-macro-expansions", "-diagnostic-style=llvm", "-no-color-diagnostics",
      file.path,
    ], mergingStandardError: true)
    return parse(outcome.output.replacingOccurrences(of: file.path, with: sourceFileName))
  }

  /// Splits the compiler's output into expansions (`@__swiftmacro_….swift`, a line of dashes, the
  /// code, a line of dashes) and diagnostics (a header, then the excerpt lines up to the next header).
  static func parse(_ output: String) -> Report {
    var report = Report(output: output)
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    let separator = String(repeating: "-", count: 30)
    var index = 0
    var current: CompilerDiagnostic?
    func flush() {
      guard let diagnostic = current else { return }
      if diagnostic.severity == "note", !report.diagnostics.isEmpty {
        report.diagnostics[report.diagnostics.count - 1].notes.append(diagnostic)
      } else {
        report.diagnostics.append(diagnostic)
      }
      current = nil
    }
    func startsExpansion(_ at: Int) -> Bool {
      lines[at].hasPrefix("@__swiftmacro_") && at + 1 < lines.count && lines[at + 1] == separator
    }
    while index < lines.count {
      if startsExpansion(index) {
        flush()
        var end = index + 2
        while end < lines.count, lines[end] != separator { end += 1 }
        let code = lines[(index + 2)..<end].joined(separator: "\n")
        if !code.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { report.expansions.append(code) }
        index = end + 1
      } else if var diagnostic = CompilerDiagnostic(header: lines[index]) {
        flush()
        var end = index + 1
        while end < lines.count, CompilerDiagnostic(header: lines[end]) == nil, !startsExpansion(end) { end += 1 }
        diagnostic.readExcerpt(Array(lines[(index + 1)..<end]))
        current = diagnostic
        index = end
      } else {
        index += 1
      }
    }
    flush()
    return report
  }

  /// `source` with the edits of the fix-it notes on ``sourceFileName`` applied (later ones first,
  /// so earlier columns stay valid); notes whose edit the compiler did not show are skipped.
  static func applyingFixIts(of diagnostics: [CompilerDiagnostic], to source: String) -> String {
    var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
    let edits = diagnostics.flatMap(\.notes).filter { $0.file == sourceFileName }
      .compactMap { note in note.edit.map { (line: note.line - 1, edit: $0) } }
      .sorted { ($0.line, $0.edit.column) > ($1.line, $1.edit.column) }
    for (line, edit) in edits where lines.indices.contains(line) && edit.column - 1 + edit.length <= lines[line].count {
      lines[line].replaceSubrange((edit.column - 1)..<(edit.column - 1 + edit.length), with: Array(edit.replacement))
    }
    return lines.map { String($0) }.joined(separator: "\n")
  }
}
