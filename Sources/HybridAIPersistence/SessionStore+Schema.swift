import GRDB

extension SessionStore {
  /// The database schema, created and upgraded by migrations (never edit a registered one; add a
  /// new migration instead).
  ///
  /// - `session`: one row per saved session, with its transcript's stable JSON (a BLOB, kept byte
  ///   for byte) and `saveSequence`, which increases with every save and orders ``list()``.
  /// - `sessionArtifact`: which artifacts each session's transcript refers to, in order; it
  ///   decides which artifacts ``delete(id:)`` may remove.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: sessions and their artifacts") { db in
      try db.execute(sql: """
        CREATE TABLE session (
          id TEXT NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
          title TEXT,
          modelName TEXT,
          createdAt DATETIME NOT NULL,
          updatedAt DATETIME NOT NULL,
          saveSequence INTEGER NOT NULL,
          entryCount INTEGER NOT NULL CHECK (entryCount >= 0),
          transcript BLOB NOT NULL
        );
        CREATE INDEX sessionBySaveSequence ON session(saveSequence);
        CREATE TABLE sessionArtifact (
          sessionID TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
          artifactID TEXT NOT NULL,
          position INTEGER NOT NULL CHECK (position >= 0),
          PRIMARY KEY (sessionID, artifactID)
        );
        CREATE INDEX sessionArtifactByArtifact ON sessionArtifact(artifactID);
        """)
    }
    return migrator
  }
}
