/// The MIME type of a text or code file, chosen from its extension.
///
/// ```swift
/// TextFileType.mimeType(forFileName: "main.swift")   // "text/x-swift"
/// TextFileType.mimeType(forFileName: "notes")        // "text/plain"
/// ```
public enum TextFileType {
  /// The MIME types by lower-cased extension; anything else is `text/plain`.
  public static let mimeTypesByExtension: [String: String] = [
    "txt": "text/plain", "text": "text/plain", "log": "text/plain",
    "md": "text/markdown", "markdown": "text/markdown",
    "json": "application/json", "jsonl": "application/jsonl",
    "swift": "text/x-swift", "py": "text/x-python", "c": "text/x-c", "h": "text/x-c",
    "cpp": "text/x-c++", "cc": "text/x-c++", "hpp": "text/x-c++", "m": "text/x-objective-c",
    "java": "text/x-java", "kt": "text/x-kotlin", "rs": "text/x-rust", "go": "text/x-go",
    "rb": "text/x-ruby", "sh": "text/x-shellscript", "js": "text/javascript", "mjs": "text/javascript",
    "ts": "text/x-typescript", "html": "text/html", "htm": "text/html", "css": "text/css",
    "xml": "application/xml", "svg": "image/svg+xml", "csv": "text/csv", "tsv": "text/tab-separated-values",
    "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml", "sql": "application/sql",
  ]

  /// The MIME type for `fileName`'s extension; `text/plain` when it has none or an unknown one.
  public static func mimeType(forFileName fileName: String) -> String {
    guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return "text/plain" }
    let ext = fileName[fileName.index(after: dot)...].lowercased()
    return mimeTypesByExtension[ext] ?? "text/plain"
  }
}
