import Foundation

extension ToolContext {
  /// The files of this conversation, oldest first: the attachments of its prompts and responses
  /// and the artifacts of its tool outputs, each once, with its local file URL when the store
  /// still has it. A tool reads one the model names with ``conversationFile(named:)``.
  public var conversationFiles: [ArtifactReference] {
    transcript.fileReferences.map { artifactStore?.reference(id: $0.id) ?? $0 }
  }

  /// The file of this conversation that `name` names — what a model passes to a tool when the
  /// user says "this photo": its id, its file name (the newest file of that name), or the
  /// reference text the model was shown (`[artifact <id> "photo.png" image/png 12.3 kB]`).
  /// `nil` when no file of the conversation matches: a tool then treats `name` as it otherwise
  /// would (a path, say). Files of the store that this conversation never saw are not found.
  public func conversationFile(named name: String) -> ArtifactReference? {
    var key = name.trimmingCharacters(in: .whitespacesAndNewlines)
    if let range = key.range(of: "[artifact ") {
      key = String(key[range.upperBound...].prefix { !$0.isWhitespace && $0 != "]" })
    }
    key = key.trimmingCharacters(in: CharacterSet(charactersIn: "\"'`"))
    guard !key.isEmpty else { return nil }
    let files = conversationFiles
    return files.first { $0.id == key } ?? files.last { $0.name == key }
      ?? files.last { $0.name.caseInsensitiveCompare(key) == .orderedSame }
  }

  /// The newest file of the conversation of kind `modality` (the photo the user attached last,
  /// say), or `nil` when it has none.
  public func newestConversationFile(of modality: Modality) -> ArtifactReference? {
    conversationFiles.last { MediaType.named($0.mimeType)?.modality == modality }
  }

  /// The bytes of one of the conversation's files (see ``conversationFiles``).
  /// - Throws: ``AttachmentError/unknownArtifact(id:)`` when the session's store does not hold it.
  public func contents(of file: ArtifactReference) throws(AttachmentError) -> Data {
    guard let store = artifactStore else { throw .unknownArtifact(id: file.id) }
    do { return try store.contents(of: file.id) } catch .unknownArtifact(let id) {
      throw .unknownArtifact(id: id)
    } catch {
      throw .unreadable(path: file.name, reason: error.description)
    }
  }
}
