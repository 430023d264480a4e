import Foundation

/// Turns the names a model uses for artifacts into their file URLs, in structured answers.
///
/// A model sees each artifact only as a reference line (``ArtifactReference/modelDescription``):
/// its id, file name, MIME type and size. When a structured answer names an artifact in a string
/// value — the whole value being its id, `artifact:<id>`, or the file name of an artifact made in
/// this turn — the session replaces that value with the artifact's file URL, so that a type such as
///
/// ```swift
/// @Generable struct Reply {
///   @Guide(description: "Files created for the user. Empty if none.") var urls: [String]
///   @Guide(description: "Text response.") var text: String
/// }
/// ```
/// receives `file:///…/speech.wav`, never a path or an id the app must look up. The transcript keeps
/// the model's own text; only the returned content is resolved. Values that name no artifact are
/// left as they are.
public struct ArtifactLinks: Sendable {
  private var turnByID: [String: ArtifactReference] = [:]
  private var turnByName: [String: ArtifactReference] = [:]
  private let store: (any ArtifactStore)?

  /// Links for the artifacts of one turn, and for any other artifact in `store` named by its id.
  public init(turnArtifacts: [ArtifactReference], store: (any ArtifactStore)?) {
    self.store = store
    var nameCounts: [String: Int] = [:]
    for reference in turnArtifacts {
      turnByID[reference.id] = reference
      nameCounts[reference.name, default: 0] += 1
    }
    // A file name links only when it names exactly one artifact of the turn.
    for reference in turnArtifacts where nameCounts[reference.name] == 1 { turnByName[reference.name] = reference }
  }

  /// Whether there is nothing to link.
  public var isEmpty: Bool { turnByID.isEmpty && store == nil }

  /// The file URL `text` names, or `nil`.
  public func fileURL(for text: String) -> URL? {
    var key = text.trimmingCharacters(in: .whitespacesAndNewlines)
    for prefix in ["artifact://", "artifact:"] where key.hasPrefix(prefix) {
      key.removeFirst(prefix.count)
      break
    }
    let id = key.lowercased()
    return (turnByID[id] ?? turnByName[key] ?? store?.reference(id: id))?.fileURL
  }

  /// `content` with every string value that names an artifact replaced by its file URL.
  public func resolve(_ content: GeneratedContent) -> GeneratedContent {
    guard !isEmpty else { return content }
    var resolved = content
    switch content.kind {
    case .string(let text):
      if let url = fileURL(for: text) { resolved.kind = .string(url.absoluteString) }
    case .array(let elements):
      resolved.kind = .array(elements.map(resolve))
    case .structure(let properties, let orderedKeys):
      resolved.kind = .structure(properties: properties.mapValues(resolve), orderedKeys: orderedKeys)
    case .null, .bool, .number:
      break
    }
    return resolved
  }
}
