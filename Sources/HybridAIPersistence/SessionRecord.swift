import Foundation

/// What a ``SessionStore`` knows about a saved session without reading its transcript: the
/// summary ``SessionStore/list()`` returns.
public struct SessionRecord: Sendable, Hashable, Codable, Identifiable {
  /// The session's identifier (1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`).
  public var id: String
  /// The title given when saving, if any.
  public var title: String?
  /// The ``HybridAI/LanguageModel/modelIdentifier`` of the model the session last used, if known.
  public var modelName: String?
  /// When the session was first saved.
  public var createdAt: Date
  /// When the session was last saved.
  public var updatedAt: Date
  /// The number of entries in its transcript.
  public var entryCount: Int
  /// The number of distinct artifacts its transcript refers to.
  public var artifactCount: Int

  /// A record with the given fields.
  public init(id: String, title: String?, modelName: String?, createdAt: Date, updatedAt: Date,
              entryCount: Int, artifactCount: Int) {
    self.id = id
    self.title = title
    self.modelName = modelName
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.entryCount = entryCount
    self.artifactCount = artifactCount
  }
}
