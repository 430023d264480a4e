import Foundation

/// One diagnostic of `swiftc -diagnostic-style=llvm`, with the notes that follow it.
///
/// The compiler prints a diagnostic as `file:line:column: severity: message`, then the source
/// line, a line marking the column (`^`) and highlighting ranges (`~`) and, for a fix-it, its
/// replacement text under the range it replaces. A macro's diagnostics end in ` (from macro 'Name')`; the compiler's own may end in a
/// diagnostic group, ` [#Group]`.
struct CompilerDiagnostic: CustomStringConvertible {
  /// The edit a fix-it note shows: the range it underlines on the note's line and what replaces it.
  struct Edit {
    /// The first column replaced (1-based) and how many characters.
    var column: Int
    var length: Int
    var replacement: String
  }

  var file: String
  var line: Int
  var column: Int
  var severity: String
  var message: String
  /// The macro that emitted it, `nil` for the compiler's own diagnostics.
  var macro: String?
  /// For a note: the edit it shows, when the compiler could show it on the note's line.
  var edit: Edit?
  /// The notes that follow an error or warning (fix-its among them).
  var notes: [CompilerDiagnostic] = []

  var description: String {
    let origin = macro.map { " (from macro '\($0)')" } ?? ""
    let own = "\(file):\(line):\(column): \(severity): \(message)\(origin)"
    return ([own] + notes.map { "  \($0.description)" }).joined(separator: "\n")
  }
}

extension CompilerDiagnostic {
  /// Parses the header line `file:line:column: severity: message`, or `file:line: severity:
  /// message` (the compiler's own `<unknown>:0: error: …`, e.g. a plug-in that failed to load),
  /// or `nil` when `text` is neither.
  init?(header text: Substring) {
    let severities = ["error", "warning", "note", "remark"]
    var parts = text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
    if parts.count >= 4, Int(parts[2]) == nil, severities.contains(String(parts[2].dropFirst())) {
      parts = text.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
      parts.insert("0", at: 2)
    }
    guard parts.count == 5, let line = Int(parts[1]), let column = Int(parts[2]),
          severities.contains(String(parts[3].dropFirst())) else { return nil }
    file = String(parts[0])
    self.line = line
    self.column = column
    severity = String(parts[3].dropFirst())
    var message = String(parts[4].dropFirst())
    if let range = message.range(of: #" \(from macro '[A-Za-z]+ *'\)$"#, options: .regularExpression) {
      // The compiler names the macro with its trailing trivia ("'Generable '" before a keyword).
      macro = message[range].dropFirst(" (from macro '".count).dropLast("')".count)
        .trimmingCharacters(in: .whitespaces)
      message.removeSubrange(range)
    } else if let range = message.range(of: #" \[#[A-Za-z]+\]$"#, options: .regularExpression) {
      message.removeSubrange(range)
    }
    self.message = message
  }

  /// Reads the lines after the header: the source line, a line marking the diagnostic's column
  /// (`^`) and highlighting ranges (`~`), and, for a fix-it, its replacement text starting under
  /// the range it replaces (which may begin at the caret: `^~~~`).
  mutating func readExcerpt(_ lines: [Substring]) {
    guard severity == "note", lines.count >= 3, lines[1].allSatisfy({ " ^~".contains($0) }),
          let start = lines[2].firstIndex(where: { $0 != " " }) else { return }
    let offset = lines[2].distance(from: lines[2].startIndex, to: start)
    let marks = Array(lines[1])
    let length = marks.dropFirst(offset).prefix { $0 != " " }.count
    edit = Edit(column: offset + 1, length: length, replacement: String(lines[2][start...]))
  }
}
