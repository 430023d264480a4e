import Foundation
import GRDB
import HybridAI
import HybridAIFileStorage
import Logging

/// Saves, lists, loads and deletes sessions — their transcripts and the artifacts their tools
/// made — in a directory: an SQLite database (`DIR/sessions.sqlite`, through GRDB, with schema
/// migrations and foreign keys on) and one ``HybridAI/ArtifactStore`` (`DIR/artifacts`) that all
/// sessions share.
///
/// Create new sessions with the shared store so that their artifacts are kept with them, save
/// them when they change, and reopen them later — in this process or another:
///
/// ```swift
/// let store = try SessionStore(directory: appSupport.appendingPathComponent("sessions"))
/// let session = GenerativeModelSession(model: model, tools: tools, artifactStore: store.artifactStore)
/// _ = try await session.respond(to: "Read this text aloud: …")
/// let record = try store.save(session, title: "Speech")
///
/// // Later, perhaps after a restart:
/// let resumed = try store.makeSession(id: record.id, model: model, tools: tools)
/// ```
///
/// Deleting a session removes the artifacts that no other saved session refers to. The store is
/// safe to use from many tasks at once; writes are serialised by the database. One directory
/// should be used by one process at a time (the artifact store's index is per process).
public final class SessionStore: Sendable {
  /// The directory holding the database and the artifacts.
  public let directory: URL
  /// The artifact store shared by all sessions of this store (`DIR/artifacts`). Pass it to
  /// `GenerativeModelSession(model:…, artifactStore:)` so the session's artifacts are kept here.
  public let artifactStore: any ArtifactStore

  private let database: DatabasePool
  private let logger: Logger

  /// The database file's name inside ``directory``.
  public static let databaseFileName = "sessions.sqlite"
  /// The artifact directory's name inside ``directory``.
  public static let artifactDirectoryName = "artifacts"

  /// Opens the store in `directory`, creating the directory, the database and the artifact store
  /// if needed and bringing the database schema up to date.
  /// - Parameter artifactLimits: The size limits of the shared artifact store.
  /// - Throws: ``SessionStoreError/database(reason:)`` or ``SessionStoreError/artifactStore(reason:)``.
  public init(directory: URL, artifactLimits: ArtifactStoreLimits = .init(),
              logger: Logger = Logger(label: "HybridAI.sessions")) throws(SessionStoreError) {
    self.directory = directory
    self.logger = logger
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), !isFolder.boolValue {
      throw .database(reason: "\(directory.path) is a file, not a folder")
    }
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw .database(reason: "cannot create \(directory.path): \(FileSystemErrorText.describe(error))")
    }
    do {
      artifactStore = try FileArtifactStore(
        directory: directory.appendingPathComponent(Self.artifactDirectoryName, isDirectory: true),
        limits: artifactLimits)
    } catch {
      throw .artifactStore(reason: "\(error)")
    }
    let path = directory.appendingPathComponent(Self.databaseFileName, isDirectory: false).path
    do {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = true
      configuration.busyMode = .timeout(10)
      database = try DatabasePool(path: path, configuration: configuration)
      let applied = try database.read { try Self.migrator.appliedIdentifiers($0) }
      try Self.migrator.migrate(database)
      let pending = Self.migrator.migrations.filter { !applied.contains($0) }
      logger.info("session database open", metadata: [
        "path": "\(path)", "migrationsApplied": "\(pending.joined(separator: ","))",
      ])
    } catch {
      throw .database(reason: "cannot open \(path): \(error)")
    }
  }

  // MARK: - Saving

  /// Saves `session`'s transcript (and the name of its model) under `id`, replacing what was
  /// saved under that id before.
  ///
  /// - Parameters:
  ///   - id: The session's identifier: 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`;
  ///     `nil` makes a new one (a UUID).
  ///   - title: A title for lists; `nil` keeps the title saved before, if any.
  /// - Returns: The saved record.
  /// - Throws: ``SessionStoreError``.
  @discardableResult
  public func save(_ session: GenerativeModelSession, id: String? = nil, title: String? = nil) throws(SessionStoreError) -> SessionRecord {
    try save(session.transcript, modelName: session.model.modelIdentifier, id: id, title: title)
  }

  /// Saves `transcript` under `id`, replacing what was saved under that id before; see
  /// ``save(_:id:title:)``.
  /// - Parameter modelName: The model the conversation used, if known.
  @discardableResult
  public func save(_ transcript: Transcript, modelName: String? = nil, id: String? = nil,
                   title: String? = nil) throws(SessionStoreError) -> SessionRecord {
    let id = try id.map(SessionID.validated) ?? SessionID.generate()
    let json: Data
    do {
      json = try transcript.jsonData()
    } catch {
      throw .corruptTranscript(id: id, reason: "cannot encode: \(error)")
    }
    let artifactIDs = Self.artifactIDs(in: transcript)
    let entryCount = transcript.count
    let now = Date()
    return try write { db in
      try db.cachedStatement(sql: """
          INSERT INTO session (id, title, modelName, createdAt, updatedAt, saveSequence, entryCount, transcript)
          VALUES (?1, ?2, ?3, ?4, ?4, (SELECT coalesce(max(saveSequence), 0) + 1 FROM session), ?5, ?6)
          ON CONFLICT (id) DO UPDATE SET
            title = coalesce(excluded.title, title),
            modelName = coalesce(excluded.modelName, modelName),
            updatedAt = excluded.updatedAt,
            saveSequence = excluded.saveSequence,
            entryCount = excluded.entryCount,
            transcript = excluded.transcript
          """)
        .execute(arguments: [id, title, modelName, now, entryCount, json])
      try db.cachedStatement(sql: "DELETE FROM sessionArtifact WHERE sessionID = ?").execute(arguments: [id])
      let insert = try db.cachedStatement(sql: "INSERT INTO sessionArtifact (sessionID, artifactID, position) VALUES (?, ?, ?)")
      for (position, artifactID) in artifactIDs.enumerated() {
        try insert.execute(arguments: [id, artifactID, position])
      }
      guard let record = try Self.fetchRecord(db, id: id) else { throw SessionStoreError.notFound(id) }
      return record
    }
  }

  // MARK: - Reading

  /// The saved sessions, most recently saved first.
  /// - Throws: ``SessionStoreError/database(reason:)``.
  public func list() throws(SessionStoreError) -> [SessionRecord] {
    try read { db in
      try Row.fetchAll(db.cachedStatement(sql: "\(Self.recordSelect) ORDER BY s.saveSequence DESC")).map(Self.record(from:))
    }
  }

  /// The record of session `id`.
  /// - Throws: ``SessionStoreError/invalidID(_:)``, ``SessionStoreError/notFound(_:)`` or
  ///   ``SessionStoreError/database(reason:)``.
  public func record(id: String) throws(SessionStoreError) -> SessionRecord {
    let id = try SessionID.validated(id)
    return try read { db in
      guard let record = try Self.fetchRecord(db, id: id) else { throw SessionStoreError.notFound(id) }
      return record
    }
  }

  /// Session `id`: its record, its transcript and its artifacts with their file URLs.
  /// - Throws: ``SessionStoreError/invalidID(_:)``, ``SessionStoreError/notFound(_:)``,
  ///   ``SessionStoreError/corruptTranscript(id:reason:)`` or ``SessionStoreError/database(reason:)``.
  public func load(id: String) throws(SessionStoreError) -> SavedSession {
    let id = try SessionID.validated(id)
    let (record, json) = try read { db in
      guard let record = try Self.fetchRecord(db, id: id),
            let json = try Data.fetchOne(db.cachedStatement(sql: "SELECT transcript FROM session WHERE id = ?"),
                                         arguments: [id])
      else { throw SessionStoreError.notFound(id) }
      return (record, json)
    }
    let transcript: Transcript
    do {
      transcript = try Transcript(jsonData: json)
    } catch {
      throw .corruptTranscript(id: id, reason: "\(error)")
    }
    var artifacts: [ArtifactReference] = []
    var missing: [String] = []
    for artifactID in Self.artifactIDs(in: transcript) {
      if let reference = artifactStore.reference(id: artifactID) {
        artifacts.append(reference)
      } else {
        missing.append(artifactID)
      }
    }
    return SavedSession(record: record, transcript: transcript, artifacts: artifacts, missingArtifactIDs: missing)
  }

  /// A session that continues saved session `id`: its transcript, `model`, `tools` (give it the
  /// tools the conversation used) and the shared ``artifactStore``.
  /// - Throws: As ``load(id:)``.
  public func makeSession(id: String, model: some LanguageModel, tools: [any Tool] = [], toolCatalogs: [any ToolCatalog] = [],
                          toolPolicy: ToolExecutionPolicy = .default,
                          contextPolicy: ContextPolicy = .fail) throws(SessionStoreError) -> GenerativeModelSession {
    let saved = try load(id: id)
    return GenerativeModelSession(model: model, tools: tools, toolCatalogs: toolCatalogs, transcript: saved.transcript,
                                  toolPolicy: toolPolicy, contextPolicy: contextPolicy, artifactStore: artifactStore)
  }

  // MARK: - Deleting

  /// Deletes session `id` and the artifacts that no other saved session refers to.
  ///
  /// Artifacts in the shared store that no saved session refers to (those of sessions never
  /// saved) are left alone.
  /// - Throws: ``SessionStoreError/invalidID(_:)``, ``SessionStoreError/notFound(_:)`` or
  ///   ``SessionStoreError/database(reason:)``.
  public func delete(id: String) throws(SessionStoreError) {
    let id = try SessionID.validated(id)
    let artifactStore = artifactStore
    let logger = logger
    try write { db in
      let orphans = try String.fetchAll(db.cachedStatement(sql: """
          SELECT artifactID FROM sessionArtifact AS mine
          WHERE mine.sessionID = ?1
            AND NOT EXISTS (SELECT 1 FROM sessionArtifact AS other
                            WHERE other.artifactID = mine.artifactID AND other.sessionID <> ?1)
          ORDER BY position
          """), arguments: [id])
      try db.cachedStatement(sql: "DELETE FROM session WHERE id = ?").execute(arguments: [id])
      guard db.changesCount > 0 else { throw SessionStoreError.notFound(id) }
      // Removed while the write lock is held, so that no concurrent save can start to refer to
      // an artifact between the check above and its removal.
      for artifactID in orphans where artifactStore.reference(id: artifactID) != nil {
        do {
          try artifactStore.remove(id: artifactID)
        } catch {
          logger.warning("cannot remove artifact of deleted session", metadata: [
            "session": "\(id)", "artifact": "\(artifactID)", "error": "\(error)",
          ])
        }
      }
    }
  }

  // MARK: - Helpers

  private static let recordSelect = """
    SELECT s.id, s.title, s.modelName, s.createdAt, s.updatedAt, s.entryCount,
           (SELECT count(*) FROM sessionArtifact AS a WHERE a.sessionID = s.id) AS artifactCount
    FROM session AS s
    """

  private static func fetchRecord(_ db: Database, id: String) throws -> SessionRecord? {
    try Row.fetchOne(db.cachedStatement(sql: "\(recordSelect) WHERE s.id = ?"), arguments: [id]).map(record(from:))
  }

  private static func record(from row: Row) -> SessionRecord {
    SessionRecord(id: row["id"], title: row["title"], modelName: row["modelName"], createdAt: row["createdAt"],
                  updatedAt: row["updatedAt"], entryCount: row["entryCount"], artifactCount: row["artifactCount"])
  }

  /// The distinct artifact identifiers `transcript` refers to — tool outputs' artifacts, and the
  /// attachments of prompts and responses (``HybridAI/Transcript/fileReferences``) — in order of
  /// first appearance.
  static func artifactIDs(in transcript: Transcript) -> [String] {
    transcript.fileReferences.map(\.id)
  }

  private func read<T>(_ body: (Database) throws -> T) throws(SessionStoreError) -> T {
    do {
      return try database.read(body)
    } catch {
      throw Self.storeError(error)
    }
  }

  private func write<T>(_ body: (Database) throws -> T) throws(SessionStoreError) -> T {
    do {
      return try database.write(body)
    } catch {
      throw Self.storeError(error)
    }
  }

  private static func storeError(_ error: any Error) -> SessionStoreError {
    (error as? SessionStoreError) ?? .database(reason: "\(error)")
  }
}
