import Foundation
import GRDB
import HybridAIWire
import Logging

/// The registry's metadata in one SQLite file (`DIR/registry.sqlite`), through GRDB: WAL mode,
/// foreign keys on, schema created and upgraded by migrations. Statements are prepared once per
/// connection (GRDB's statement cache) rather than parsed on every call.
///
/// Meant for one writing process: ``ModelRegistry`` answers reads from its own snapshot, so a
/// change made by another process is not seen by a running registry.
public final class SQLiteRegistryStore: RegistryStore {
  private let database: DatabasePool

  /// Opens (creating when missing) the database at `path` and brings its schema up to date.
  public init(path: String, logger: Logger = Logger(label: "HybridAI.registry.store")) throws {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(10)
    database = try DatabasePool(path: path, configuration: configuration)
    let applied = try database.read { try Self.migrator.appliedIdentifiers($0) }
    try Self.migrator.migrate(database)
    let pending = Self.migrator.migrations.filter { !applied.contains($0) }
    logger.info("registry database open", metadata: [
      "path": "\(path)", "migrationsApplied": "\(pending.joined(separator: ","))",
    ])
  }

  // MARK: - Schema

  private static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: models, versions, roll-out splits") { db in
      try db.execute(sql: """
        CREATE TABLE model (
          name TEXT NOT NULL PRIMARY KEY,
          description TEXT NOT NULL,
          tags TEXT NOT NULL,                      -- JSON array of strings
          createTime DATETIME NOT NULL,
          lastVersionNumber INTEGER NOT NULL DEFAULT 0 CHECK (lastVersionNumber >= 0)
        );
        CREATE TABLE modelVersion (
          modelName TEXT NOT NULL REFERENCES model(name) ON DELETE CASCADE,
          number INTEGER NOT NULL CHECK (number > 0),
          sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
          sizeBytes INTEGER NOT NULL CHECK (sizeBytes >= 0),
          format TEXT NOT NULL CHECK (format IN ('tflite', 'gguf', 'other')),
          state TEXT NOT NULL CHECK (state IN ('draft', 'published')),
          createTime DATETIME NOT NULL,
          PRIMARY KEY (modelName, number)
        );
        CREATE INDEX modelVersionBySHA256 ON modelVersion(sha256);
        CREATE TABLE rolloutSplit (
          modelName TEXT NOT NULL,
          position INTEGER NOT NULL CHECK (position >= 0),
          versionNumber INTEGER NOT NULL,
          basisPoints INTEGER NOT NULL CHECK (basisPoints BETWEEN 1 AND 10000),
          PRIMARY KEY (modelName, position),
          FOREIGN KEY (modelName, versionNumber) REFERENCES modelVersion(modelName, number) ON DELETE CASCADE
        );
        CREATE INDEX rolloutSplitByVersion ON rolloutSplit(modelName, versionNumber);
        """)
    }
    return migrator
  }

  // MARK: - RegistryStore

  public func models() async throws -> [ModelRecord] {
    try await database.read { db in
      let versions = Dictionary(
        grouping: try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM modelVersion ORDER BY modelName, number")),
        by: { $0["modelName"] as String })
      let splits = Dictionary(
        grouping: try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM rolloutSplit ORDER BY modelName, position")),
        by: { $0["modelName"] as String })
      return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM model ORDER BY name")).map { row in
        let name: String = row["name"]
        return try Self.model(from: row, versions: versions[name] ?? [], splits: splits[name] ?? [])
      }
    }
  }

  public func model(named name: String) async throws -> ModelRecord? {
    try await database.read { db in try Self.fetchModel(db, named: name) }
  }

  public func createModel(_ model: ModelRecord) async throws {
    let tags = String(decoding: try JSONEncoder().encode(model.tags), as: UTF8.self)
    try await database.write { db in
      guard try Self.modelExists(db, named: model.name) == false else {
        throw RegistryStoreError.modelAlreadyExists(model.name)
      }
      try db.cachedStatement(sql: "INSERT INTO model (name, description, tags, createTime) VALUES (?, ?, ?, ?)")
        .execute(arguments: [model.name, model.description, tags, model.createTime])
    }
  }

  public func deleteModel(named name: String) async throws {
    try await database.write { db in
      try db.cachedStatement(sql: "DELETE FROM model WHERE name = ?").execute(arguments: [name])
      guard db.changesCount > 0 else { throw RegistryStoreError.modelNotFound(name) }
    }
  }

  public func addVersion(toModel name: String, sha256: String, sizeBytes: Int64, format: ModelFormat,
                         createTime: Date) async throws -> ModelRecord.Version {
    try await database.write { db in
      guard let last = try Int.fetchOne(db.cachedStatement(sql: "SELECT lastVersionNumber FROM model WHERE name = ?"),
                                        arguments: [name]) else {
        throw RegistryStoreError.modelNotFound(name)
      }
      let version = ModelRecord.Version(number: last + 1, sha256: sha256, sizeBytes: sizeBytes, format: format,
                                          state: .draft, createTime: createTime)
      try db.cachedStatement(sql: "UPDATE model SET lastVersionNumber = ? WHERE name = ?")
        .execute(arguments: [version.number, name])
      try db.cachedStatement(sql: """
          INSERT INTO modelVersion (modelName, number, sha256, sizeBytes, format, state, createTime)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          """)
        .execute(arguments: [name, version.number, sha256, sizeBytes, format.rawValue, version.state.rawValue, createTime])
      return version
    }
  }

  public func setState(_ state: ModelRecord.Version.State, ofVersion version: Int,
                       inModel name: String) async throws -> ModelRecord {
    try await database.write { db in
      try Self.requireVersion(db, version, ofModel: name)
      if state == .draft { try Self.removeRollout(db, ofModel: name, ifItNames: version) }
      try db.cachedStatement(sql: "UPDATE modelVersion SET state = ? WHERE modelName = ? AND number = ?")
        .execute(arguments: [state.rawValue, name, version])
      return try Self.requireModel(db, named: name)
    }
  }

  public func deleteVersion(_ version: Int, ofModel name: String) async throws {
    try await database.write { db in
      try Self.requireVersion(db, version, ofModel: name)
      try Self.removeRollout(db, ofModel: name, ifItNames: version)
      try db.cachedStatement(sql: "DELETE FROM modelVersion WHERE modelName = ? AND number = ?")
        .execute(arguments: [name, version])
    }
  }

  public func setRollout(_ rollout: ModelRecord.Rollout?, ofModel name: String) async throws -> ModelRecord {
    try await database.write { db in
      let model = try Self.requireModel(db, named: name)
      for split in rollout?.splits ?? [] {
        guard let version = model.version(split.version) else {
          throw RegistryStoreError.versionNotFound(model: name, version: split.version)
        }
        guard version.state == .published else {
          throw RegistryStoreError.versionNotPublished(model: name, version: split.version)
        }
      }
      try db.cachedStatement(sql: "DELETE FROM rolloutSplit WHERE modelName = ?").execute(arguments: [name])
      for (position, split) in (rollout?.splits ?? []).enumerated() {
        try db.cachedStatement(
          sql: "INSERT INTO rolloutSplit (modelName, position, versionNumber, basisPoints) VALUES (?, ?, ?, ?)")
          .execute(arguments: [name, position, split.version, split.basisPoints])
      }
      return try Self.requireModel(db, named: name)
    }
  }

  public func isBlobReferenced(sha256: String) async throws -> Bool {
    try await database.read { db in
      try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM modelVersion WHERE sha256 = ?)"),
                        arguments: [sha256]) ?? false
    }
  }

  // MARK: - Rows

  private static func modelExists(_ db: Database, named name: String) throws -> Bool {
    try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM model WHERE name = ?)"), arguments: [name]) ?? false
  }

  private static func requireModel(_ db: Database, named name: String) throws -> ModelRecord {
    guard let model = try fetchModel(db, named: name) else { throw RegistryStoreError.modelNotFound(name) }
    return model
  }

  private static func requireVersion(_ db: Database, _ version: Int, ofModel name: String) throws {
    guard try modelExists(db, named: name) else { throw RegistryStoreError.modelNotFound(name) }
    let exists = try Bool.fetchOne(
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM modelVersion WHERE modelName = ? AND number = ?)"),
      arguments: [name, version]) ?? false
    guard exists else { throw RegistryStoreError.versionNotFound(model: name, version: version) }
  }

  /// Removes the model's whole roll-out when one of its splits names `version`.
  private static func removeRollout(_ db: Database, ofModel name: String, ifItNames version: Int) throws {
    try db.cachedStatement(sql: """
        DELETE FROM rolloutSplit WHERE modelName = ?
          AND EXISTS (SELECT 1 FROM rolloutSplit WHERE modelName = ? AND versionNumber = ?)
        """)
      .execute(arguments: [name, name, version])
  }

  private static func fetchModel(_ db: Database, named name: String) throws -> ModelRecord? {
    guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM model WHERE name = ?"), arguments: [name]) else {
      return nil
    }
    let versions = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM modelVersion WHERE modelName = ? ORDER BY number"),
                                    arguments: [name])
    let splits = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM rolloutSplit WHERE modelName = ? ORDER BY position"),
                                  arguments: [name])
    return try model(from: row, versions: versions, splits: splits)
  }

  private static func model(from row: Row, versions: [Row], splits: [Row]) throws -> ModelRecord {
    let name: String = row["name"]
    let tagsJSON: String = row["tags"]
    guard let tags = try? JSONDecoder().decode([String].self, from: Data(tagsJSON.utf8)) else {
      throw CorruptRegistryRecord(table: "model", key: name, column: "tags")
    }
    let rollout = splits.isEmpty ? nil : ModelRecord.Rollout(splits: splits.map {
      ModelRecord.Rollout.Split(version: $0["versionNumber"], basisPoints: $0["basisPoints"])
    })
    return ModelRecord(
      name: name, description: row["description"], tags: tags, createTime: row["createTime"],
      versions: try versions.map(version(from:)), rollout: rollout)
  }

  private static func version(from row: Row) throws -> ModelRecord.Version {
    let key = "\(row["modelName"] as String)/\(row["number"] as Int)"
    guard let format = ModelFormat(rawValue: row["format"]) else {
      throw CorruptRegistryRecord(table: "modelVersion", key: key, column: "format")
    }
    guard let state = ModelRecord.Version.State(rawValue: row["state"]) else {
      throw CorruptRegistryRecord(table: "modelVersion", key: key, column: "state")
    }
    return ModelRecord.Version(number: row["number"], sha256: row["sha256"], sizeBytes: row["sizeBytes"],
                                 format: format, state: state, createTime: row["createTime"])
  }
}

/// A value in the registry database that no version of this code writes.
struct CorruptRegistryRecord: Error, CustomStringConvertible {
  let table: String
  let key: String
  let column: String

  var description: String { "registry database: \(table) \(key) has an unreadable \(column)" }
}
