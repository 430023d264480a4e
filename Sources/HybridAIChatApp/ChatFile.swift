import HybridAI

/// A file of a chat session as the page sees it: an attachment the user sent or a file a model
/// or tool made. Its bytes are at ``url`` (`GET`), served with their true type.
public struct ChatFile: Sendable, Hashable, Codable {
  public var id: String
  public var name: String
  public var mimeType: String
  public var size: Int64
  /// Where the page fetches the bytes, relative to the server.
  public var url: String

  init(_ reference: ArtifactReference, sessionID: String) {
    id = reference.id
    name = reference.name
    mimeType = reference.mimeType
    size = reference.size
    url = ChatRoutes.filePath(sessionID: sessionID, fileID: reference.id)
  }
}
