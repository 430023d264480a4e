import Logging
import PostgresNIO

/// One step of the PostgreSQL schema: applied once, in order of `version`, inside the transaction
/// that records it in `schema_migrations`.
struct PostgresMigration: Sendable {
  /// 1, 2, …: the order, and the number recorded in `schema_migrations`.
  let version: Int
  /// What it does, for people.
  let name: String
  /// The statements, run one after another (PostgreSQL's extended protocol takes one at a time).
  let statements: [String]
}

/// The registry's tables in PostgreSQL and the migrations that make them.
///
/// To change the schema, append a migration (`version` one above the last) to ``migrations``;
/// never edit one that has shipped. ``migrate(_:migrations:logger:)`` applies the missing ones at
/// start, under an advisory lock, so instances that start together do not race.
enum PostgresRegistrySchema {
  /// Every migration, oldest first.
  static let migrations: [PostgresMigration] = [version1, version2]

  /// The schema of ``SQLiteRegistryStore``'s migration "v1", in PostgreSQL's types.
  static let version1 = PostgresMigration(version: 1, name: "models, versions, roll-out splits", statements: [
    """
    CREATE TABLE model (
      name text PRIMARY KEY,
      description text NOT NULL,
      tags text[] NOT NULL,
      create_time timestamptz NOT NULL,
      last_version_number integer NOT NULL DEFAULT 0 CHECK (last_version_number >= 0)
    )
    """,
    """
    CREATE TABLE model_version (
      model_name text NOT NULL REFERENCES model(name) ON DELETE CASCADE,
      number integer NOT NULL CHECK (number > 0),
      sha256 text NOT NULL CHECK (length(sha256) = 64),
      size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
      format text NOT NULL CHECK (format IN ('tflite', 'gguf', 'other')),
      state text NOT NULL CHECK (state IN ('draft', 'published')),
      create_time timestamptz NOT NULL,
      PRIMARY KEY (model_name, number)
    )
    """,
    "CREATE INDEX model_version_by_sha256 ON model_version (sha256)",
    """
    CREATE TABLE rollout_split (
      model_name text NOT NULL,
      position integer NOT NULL CHECK (position >= 0),
      version_number integer NOT NULL,
      basis_points integer NOT NULL CHECK (basis_points BETWEEN 1 AND 10000),
      PRIMARY KEY (model_name, position),
      FOREIGN KEY (model_name, version_number) REFERENCES model_version (model_name, number) ON DELETE CASCADE
    )
    """,
    "CREATE INDEX rollout_split_by_version ON rollout_split (model_name, version_number)",
  ])

  /// The API keys' rate-limit buckets, shared by the instances on this database
  /// (``PostgresRegistryStore/take(_:from:perMinute:ifAtLeast:)``). Unlogged: counts that change
  /// on every request need no write-ahead log, and losing them in a crash only refills the buckets.
  static let version2 = PostgresMigration(version: 2, name: "shared API key rate limits", statements: [
    """
    CREATE UNLOGGED TABLE api_key_rate_limit (
      bucket text PRIMARY KEY,
      units double precision NOT NULL,
      units_before_take double precision NOT NULL,
      update_time timestamptz NOT NULL
    )
    """,
  ])

  /// The advisory lock taken while migrating ("HybridAI" in ASCII).
  static let migrationLock: Int64 = 0x4879_6272_6964_4149

  /// Applies those of `migrations` that `schema_migrations` does not list, in one transaction;
  /// returns their versions.
  ///
  /// - Throws: ``RegistryStoreError/unsupportedSchemaVersion(found:newestKnown:)`` when the
  ///   database has a version newer than the newest of `migrations`.
  @discardableResult
  static func migrate(_ connection: PostgresConnection, migrations: [PostgresMigration] = migrations,
                      logger: Logger) async throws -> [Int] {
    try await connection.query("BEGIN", logger: logger)
    do {
      try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
      try await connection.query("""
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )
        """, logger: logger)
      var applied = Set<Int>()
      for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger)
        .decode(Int.self) {
        applied.insert(version)
      }
      let newestKnown = migrations.map(\.version).max() ?? 0
      if let found = applied.max(), found > newestKnown {
        throw RegistryStoreError.unsupportedSchemaVersion(found: found, newestKnown: newestKnown)
      }
      var applying: [Int] = []
      for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
        for statement in migration.statements {
          try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.query(
          "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
        applying.append(migration.version)
      }
      try await connection.query("COMMIT", logger: logger)
      return applying
    } catch {
      _ = try? await connection.query("ROLLBACK", logger: logger)
      throw error
    }
  }

  /// The versions `schema_migrations` lists, oldest first.
  static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
    var versions: [Int] = []
    for try await version in try await connection.query("SELECT version FROM schema_migrations ORDER BY version",
                                                        logger: logger).decode(Int.self) {
      versions.append(version)
    }
    return versions
  }
}
