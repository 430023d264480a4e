/// Turns any proposed file name into one that is safe to create inside a directory.
///
/// A tool, or the model through a tool, may propose any name; an ``ArtifactStore`` only ever
/// creates files with names returned by ``sanitized(_:)``:
///
/// ```swift
/// ArtifactName.sanitized("../../etc/passwd")  // "passwd"
/// ArtifactName.sanitized("re\u{0}port.txt")    // "report.txt"
/// ArtifactName.sanitized("..")                 // "artifact"
/// ```
public enum ArtifactName {
  /// The most UTF-8 bytes a sanitised name has.
  public static let maxUTF8Bytes = 128
  /// The name used when nothing usable is left of a proposed name.
  public static let fallback = "artifact"
  /// Extensions longer than this (in UTF-8 bytes) are not preserved when a name is shortened.
  static let maxExtensionUTF8Bytes = 16

  /// Returns a plain file name made from `raw`.
  ///
  /// The result keeps only the last path component (directories, `/` and `\` are dropped),
  /// contains no NULs or other control characters, does not start with a dot or end with
  /// whitespace, is at most ``maxUTF8Bytes`` UTF-8 bytes long (keeping the extension when the
  /// name is shortened), and is never empty, `.` or `..` (``fallback`` stands in).
  public static func sanitized(_ raw: String) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in raw.unicodeScalars where !isForbidden(scalar) {
      scalars.append(scalar)
    }
    let cleaned = String(scalars)
    let component = cleaned
      .split(whereSeparator: { $0 == "/" || $0 == "\\" })
      .last(where: { !$0.allSatisfy(\.isWhitespace) })
      .map(String.init) ?? ""
    var name = Substring(component)
    while let first = name.first, first == "." || first.isWhitespace { name.removeFirst() }
    while let last = name.last, last.isWhitespace { name.removeLast() }
    let shortened = shorten(String(name))
    return shortened.isEmpty ? fallback : shortened
  }

  /// Whether a scalar never appears in a sanitised name: control and format characters,
  /// line and paragraph separators, and the unassigned or private-use ones a file system would
  /// show as garbage.
  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned,
         .privateUse:
      return true
    default:
      return false
    }
  }

  /// Cuts `name` to ``maxUTF8Bytes``, keeping a short extension, on character boundaries.
  private static func shorten(_ name: String) -> String {
    guard name.utf8.count > maxUTF8Bytes else { return name }
    var stem = Substring(name)
    var suffix = ""
    if let dot = name.lastIndex(of: "."), dot != name.startIndex {
      let ext = name[dot...]
      if ext.utf8.count <= maxExtensionUTF8Bytes {
        stem = name[..<dot]
        suffix = String(ext)
      }
    }
    let budget = maxUTF8Bytes - suffix.utf8.count
    var kept = ""
    var used = 0
    for character in stem {
      let bytes = character.utf8.count
      if used + bytes > budget { break }
      kept.append(character)
      used += bytes
    }
    while let last = kept.last, last.isWhitespace || last == "." { kept.removeLast() }
    return kept.isEmpty ? "" : kept + suffix
  }
}
