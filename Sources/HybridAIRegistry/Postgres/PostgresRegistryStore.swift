import Foundation
import HybridAIWire
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The registry's metadata in a PostgreSQL database that several `hybrid serve` instances share
/// (``isShared``: their ``ModelRegistry``s read from the database, not from a snapshot).
///
/// ```swift
/// let store = try await PostgresRegistryStore(
///   configuration: .init(url: "postgres://hybrid:secret@db.internal:5432/registry?sslmode=disable"))
/// let registry = try ModelRegistry(configuration: configuration, store: store)
/// … serve …
/// await store.shutdown()                 // closes the connections
/// ```
///
/// Opening connects once (so an unreachable or misconfigured database fails at start, with
/// ``RegistryStoreError/unavailable(_:)`` naming `host:port`) and applies the schema's missing
/// migrations (recorded in `schema_migrations`, under an advisory lock). Then a pool of
/// connections (PostgresNIO's `PostgresClient`, run by a task the store owns until
/// ``shutdown()``) answers the calls.
///
/// Same rules as ``SQLiteRegistryStore``; every change is one statement or one transaction that
/// first locks the model's row (`FOR UPDATE`), so concurrent changes from several processes to one
/// model happen one after another (two uploads never get the same version number; a roll-out
/// never names a version unpublished meanwhile). A call that cannot reach the server, loses its
/// connection, or gets no answer within ``Configuration/operationTimeout`` throws
/// ``RegistryStoreError/unavailable(_:)``; the pool reconnects by itself once the server is back.
public final class PostgresRegistryStore: RegistryStore {
  /// Where the database is.
  public let configuration: Configuration
  private let client: PostgresClient
  private let runner: Mutex<Task<Void, Never>?>
  private let isClosed = Atomic<Bool>(false)
  private let logger: Logger

  /// Several instances may share it: ``ModelRegistry`` reads from it, keeping no snapshot.
  public var isShared: Bool { true }

  /// Connects to the database (throwing ``RegistryStoreError/unavailable(_:)`` when it cannot),
  /// brings its schema up to date, and starts the connection pool.
  ///
  /// - Throws: ``RegistryStoreError/unavailable(_:)`` (unreachable, refused, wrong password, no
  ///   such database: the message says which, with `host:port`);
  ///   ``RegistryStoreError/unsupportedSchemaVersion(found:newestKnown:)``.
  public convenience init(configuration: Configuration,
                          logger: Logger = Logger(label: "HybridAI.registry.store")) async throws {
    try await self.init(configuration: configuration, migrations: PostgresRegistrySchema.migrations, logger: logger)
  }

  /// Parses `url` (``Configuration/init(url:)``) and opens the store.
  public convenience init(url: String, logger: Logger = Logger(label: "HybridAI.registry.store")) async throws {
    try await self.init(configuration: Configuration(url: url), logger: logger)
  }

  /// Opens the store with these migrations (tests add or withhold some).
  init(configuration: Configuration, migrations: [PostgresMigration], logger: Logger) async throws {
    let applied = try await Self.withConnection(configuration, logger: logger) { connection in
      try await PostgresRegistrySchema.migrate(connection, migrations: migrations, logger: logger)
    }
    let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
    self.configuration = configuration
    self.client = client
    self.logger = logger
    runner = Mutex(Task { await client.run() })
    logger.info("registry database open", metadata: [
      "database": "\(configuration.redactedDescription)",
      "migrationsApplied": "\(applied.map(String.init).joined(separator: ","))",
    ])
  }

  deinit {
    runner.withLock { $0?.cancel() }
  }

  /// Closes the pool's connections and waits until they are closed. Later calls throw
  /// ``RegistryStoreError/unavailable(_:)``. Idempotent.
  public func shutdown() async {
    isClosed.store(true, ordering: .sequentiallyConsistent)
    let task = runner.withLock { task in
      defer { task = nil }
      return task
    }
    guard let task else { return }
    task.cancel()
    await task.value
    logger.info("registry database closed", metadata: ["database": "\(configuration.redactedDescription)"])
  }

  /// Opens one connection outside the pool (and closes it) within the connect timeout, at most
  /// 2 s: a refused or unreachable server, or a refused login, is said at once — the pool would
  /// keep the caller waiting for the whole operation timeout.
  public func reachabilityProblem() async -> String? {
    let configuration = configuration, logger = logger
    let limit = min(configuration.connectTimeout, .seconds(2))
    do {
      try await Deadline.run(within: limit) { try await Self.withConnection(configuration, logger: logger) { _ in } }
      return nil
    } catch is Deadline.Expired {
      return "PostgreSQL at \(configuration.endpoint) did not accept a connection within \(limit)"
    } catch {
      return "\(error)"
    }
  }

  // MARK: - Reads

  public func models() async throws -> [ModelRecord] {
    try await perform("list models") { connection, logger in
      try await Self.fetchModels(connection, named: nil, logger: logger)
    }
  }

  public func model(named name: String) async throws -> ModelRecord? {
    try await perform("read a model") { connection, logger in
      try await Self.fetchModels(connection, named: name, logger: logger).first
    }
  }

  public func isBlobReferenced(sha256: String) async throws -> Bool {
    try await perform("look up a blob") { connection, logger in
      let rows = try await connection.query(
        "SELECT EXISTS (SELECT 1 FROM model_version WHERE sha256 = \(sha256))", logger: logger)
      for try await exists in rows.decode(Bool.self) { return exists }
      return false
    }
  }

  // MARK: - Changes

  public func createModel(_ model: ModelRecord) async throws {
    try await perform("create a model") { connection, logger in
      let rows = try await connection.query("""
        INSERT INTO model (name, description, tags, create_time)
        VALUES (\(model.name), \(model.description), \(model.tags), \(model.createTime))
        ON CONFLICT (name) DO NOTHING RETURNING name
        """, logger: logger)
      guard try await Self.hasRow(rows) else { throw RegistryStoreError.modelAlreadyExists(model.name) }
    }
  }

  public func deleteModel(named name: String) async throws {
    try await perform("delete a model") { connection, logger in
      let rows = try await connection.query("DELETE FROM model WHERE name = \(name) RETURNING name", logger: logger)
      guard try await Self.hasRow(rows) else { throw RegistryStoreError.modelNotFound(name) }
    }
  }

  public func addVersion(toModel name: String, sha256: String, sizeBytes: Int64, format: ModelFormat,
                         createTime: Date) async throws -> ModelRecord.Version {
    try await perform("add a version") { connection, logger in
      // One statement: the UPDATE locks the model's row, so concurrent uploads number one after another.
      let rows = try await connection.query("""
        WITH numbered AS (
          UPDATE model SET last_version_number = last_version_number + 1 WHERE name = \(name)
          RETURNING last_version_number
        )
        INSERT INTO model_version (model_name, number, sha256, size_bytes, format, state, create_time)
        SELECT \(name), last_version_number, \(sha256), \(sizeBytes), \(format.rawValue),
               \(ModelRecord.Version.State.draft.rawValue), \(createTime)
        FROM numbered
        RETURNING number
        """, logger: logger)
      for try await number in rows.decode(Int.self) {
        return ModelRecord.Version(number: number, sha256: sha256, sizeBytes: sizeBytes, format: format,
                                   state: .draft, createTime: createTime)
      }
      throw RegistryStoreError.modelNotFound(name)
    }
  }

  public func setState(_ state: ModelRecord.Version.State, ofVersion version: Int,
                       inModel name: String) async throws -> ModelRecord {
    try await performTransaction("change a version's state") { connection, logger in
      try await Self.lockModel(connection, named: name, logger: logger)
      if state == .draft { try await Self.removeRollout(connection, ofModel: name, ifItNames: version, logger: logger) }
      let rows = try await connection.query("""
        UPDATE model_version SET state = \(state.rawValue) WHERE model_name = \(name) AND number = \(version)
        RETURNING number
        """, logger: logger)
      guard try await Self.hasRow(rows) else { throw RegistryStoreError.versionNotFound(model: name, version: version) }
      return try await Self.requireModel(connection, named: name, logger: logger)
    }
  }

  public func deleteVersion(_ version: Int, ofModel name: String) async throws {
    try await performTransaction("delete a version") { connection, logger in
      try await Self.lockModel(connection, named: name, logger: logger)
      try await Self.removeRollout(connection, ofModel: name, ifItNames: version, logger: logger)
      let rows = try await connection.query(
        "DELETE FROM model_version WHERE model_name = \(name) AND number = \(version) RETURNING number", logger: logger)
      guard try await Self.hasRow(rows) else { throw RegistryStoreError.versionNotFound(model: name, version: version) }
    }
  }

  public func setRollout(_ rollout: ModelRecord.Rollout?, ofModel name: String) async throws -> ModelRecord {
    try await performTransaction("set a roll-out") { connection, logger in
      try await Self.lockModel(connection, named: name, logger: logger)
      let model = try await Self.requireModel(connection, named: name, logger: logger)
      let splits = rollout?.splits ?? []
      for split in splits {
        guard let version = model.version(split.version) else {
          throw RegistryStoreError.versionNotFound(model: name, version: split.version)
        }
        guard version.state == .published else {
          throw RegistryStoreError.versionNotPublished(model: name, version: split.version)
        }
      }
      try await connection.query("DELETE FROM rollout_split WHERE model_name = \(name)", logger: logger)
      for (position, split) in splits.enumerated() {
        try await connection.query("""
          INSERT INTO rollout_split (model_name, position, version_number, basis_points)
          VALUES (\(name), \(position), \(split.version), \(split.basisPoints))
          """, logger: logger)
      }
      var updated = model
      updated.rollout = rollout.flatMap { $0.splits.isEmpty ? nil : $0 }
      return updated
    }
  }

  // MARK: - Statements

  /// Locks the model's row until the transaction ends; throws `modelNotFound` when there is none.
  private static func lockModel(_ connection: PostgresConnection, named name: String, logger: Logger) async throws {
    let rows = try await connection.query("SELECT name FROM model WHERE name = \(name) FOR UPDATE", logger: logger)
    guard try await hasRow(rows) else { throw RegistryStoreError.modelNotFound(name) }
  }

  /// Removes the model's whole roll-out when one of its splits names `version`.
  private static func removeRollout(_ connection: PostgresConnection, ofModel name: String, ifItNames version: Int,
                                    logger: Logger) async throws {
    try await connection.query("""
      DELETE FROM rollout_split WHERE model_name = \(name)
        AND EXISTS (SELECT 1 FROM rollout_split WHERE model_name = \(name) AND version_number = \(version))
      """, logger: logger)
  }

  private static func requireModel(_ connection: PostgresConnection, named name: String,
                                   logger: Logger) async throws -> ModelRecord {
    guard let model = try await fetchModels(connection, named: name, logger: logger).first else {
      throw RegistryStoreError.modelNotFound(name)
    }
    return model
  }

  /// The model named `name` (or, with `nil`, every model by name), its versions and roll-out in
  /// one statement, so one consistent snapshot, in one round trip.
  private static func fetchModels(_ connection: PostgresConnection, named name: String?,
                                  logger: Logger) async throws -> [ModelRecord] {
    let select = """
      SELECT m.name, m.description, m.tags, m.create_time,
        COALESCE((SELECT json_agg(json_build_object(
                    'number', v.number, 'sha256', v.sha256, 'sizeBytes', v.size_bytes, 'format', v.format,
                    'state', v.state, 'createTime', extract(epoch FROM v.create_time)) ORDER BY v.number)
                  FROM model_version v WHERE v.model_name = m.name), '[]')::text,
        COALESCE((SELECT json_agg(json_build_object('version', s.version_number, 'basisPoints', s.basis_points)
                                  ORDER BY s.position)
                  FROM rollout_split s WHERE s.model_name = m.name), '[]')::text
      FROM model m
      """
    let query: PostgresQuery
    if let name {
      query = "\(unescaped: select) WHERE m.name = \(name)"
    } else {
      query = "\(unescaped: select) ORDER BY m.name"
    }
    var models: [ModelRecord] = []
    let rows = try await connection.query(query, logger: logger)
    for try await (name, description, tags, createTime, versionsJSON, splitsJSON)
      in rows.decode((String, String, [String], Date, String, String).self) {
      models.append(try model(name: name, description: description, tags: tags, createTime: createTime,
                              versionsJSON: versionsJSON, splitsJSON: splitsJSON))
    }
    return models
  }

  private struct VersionRow: Decodable {
    var number: Int
    var sha256: String
    var sizeBytes: Int64
    var format: String
    var state: String
    var createTime: Double
  }

  private struct SplitRow: Decodable {
    var version: Int
    var basisPoints: Int
  }

  private static func model(name: String, description: String, tags: [String], createTime: Date,
                            versionsJSON: String, splitsJSON: String) throws -> ModelRecord {
    let decoder = JSONDecoder()
    guard let versionRows = try? decoder.decode([VersionRow].self, from: Data(versionsJSON.utf8)) else {
      throw CorruptRegistryRecord(table: "model_version", key: name, column: "*")
    }
    guard let splitRows = try? decoder.decode([SplitRow].self, from: Data(splitsJSON.utf8)) else {
      throw CorruptRegistryRecord(table: "rollout_split", key: name, column: "*")
    }
    let versions = try versionRows.map { row in
      guard let format = ModelFormat(rawValue: row.format) else {
        throw CorruptRegistryRecord(table: "model_version", key: "\(name)/\(row.number)", column: "format")
      }
      guard let state = ModelRecord.Version.State(rawValue: row.state) else {
        throw CorruptRegistryRecord(table: "model_version", key: "\(name)/\(row.number)", column: "state")
      }
      return ModelRecord.Version(number: row.number, sha256: row.sha256, sizeBytes: row.sizeBytes, format: format,
                                 state: state, createTime: Date(timeIntervalSince1970: row.createTime))
    }
    let rollout = splitRows.isEmpty ? nil : ModelRecord.Rollout(splits: splitRows.map {
      ModelRecord.Rollout.Split(version: $0.version, basisPoints: $0.basisPoints)
    })
    return ModelRecord(name: name, description: description, tags: tags, createTime: createTime,
                       versions: versions, rollout: rollout)
  }

  private static func hasRow(_ rows: PostgresRowSequence) async throws -> Bool {
    var found = false
    for try await _ in rows { found = true }
    return found
  }

  // MARK: - Connections, deadlines and errors

  /// Runs `body` on a pooled connection within `timeout` (``Configuration/operationTimeout`` when
  /// `nil`), mapping connection failures to ``RegistryStoreError/unavailable(_:)``.
  func perform<T: Sendable>(
    _ what: String, within timeout: Duration? = nil,
    _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
  ) async throws -> T {
    try await performWithRetry(what, transaction: false, within: timeout ?? configuration.operationTimeout, body)
  }

  /// As ``perform(_:_:)``, inside a transaction (`BEGIN` … `COMMIT`; `ROLLBACK` when `body` throws).
  private func performTransaction<T: Sendable>(
    _ what: String, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
  ) async throws -> T {
    try await performWithRetry(what, transaction: true, within: configuration.operationTimeout, body)
  }

  private func performWithRetry<T: Sendable>(
    _ what: String, transaction: Bool, within timeout: Duration,
    _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
  ) async throws -> T {
    guard !isClosed.load(ordering: .sequentiallyConsistent) else {
      throw RegistryStoreError.unavailable("the registry store for \(configuration.endpoint) has been shut down")
    }
    var attempt = 1
    while true {
      do {
        return try await attemptOnce(transaction: transaction, within: timeout, body)
      } catch let error as PSQLError where Self.isRetryable(error) && attempt < 3 {
        attempt += 1   // a serialization failure or deadlock: the transaction was rolled back, run it again
        logger.debug("retrying a registry transaction", metadata: ["operation": "\(what)", "error": "\(Self.describe(error))"])
      } catch {
        throw classify(error, while: what, timeout: timeout)
      }
    }
  }

  private func attemptOnce<T: Sendable>(
    transaction: Bool, within timeout: Duration, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
  ) async throws -> T {
    let client = client
    let logger = logger
    return try await Deadline.run(within: timeout) {
      var leased = false
      do {
        return try await client.withConnection { connection in
          leased = true
          guard transaction else { return try await body(connection, logger) }
          try await connection.query("BEGIN", logger: logger)
          do {
            let value = try await body(connection, logger)
            try await connection.query("COMMIT", logger: logger)
            return value
          } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
          }
        }
      } catch let error where !leased && !(error is CancellationError) {
        throw LeaseFailure(underlying: error)   // no connection: the server is down or refuses
      }
    }
  }

  /// The pool could not hand out a connection.
  private struct LeaseFailure: Error {
    let underlying: any Error
  }

  /// `error` as the store reports it: connection trouble as `unavailable`, the rest unchanged.
  private func classify(_ error: any Error, while what: String, timeout: Duration) -> any Error {
    let reason: String
    switch error {
    case is RegistryStoreError, is CancellationError, is CorruptRegistryRecord:
      return error
    case let error as LeaseFailure:
      reason = "no connection to PostgreSQL at \(configuration.endpoint): \(Self.describe(error.underlying))"
    case is Deadline.Expired:
      reason = "PostgreSQL at \(configuration.endpoint) did not answer within \(timeout)"
    case let error as PSQLError where Self.isConnectionFailure(error):
      reason = "lost the connection to PostgreSQL at \(configuration.endpoint): \(Self.describe(error))"
    case is IOError, is ChannelError:
      reason = "lost the connection to PostgreSQL at \(configuration.endpoint): \(error)"
    default:
      logger.error("registry database error", metadata: ["operation": "\(what)", "error": "\(Self.describe(error))"])
      return error
    }
    logger.warning("registry database unavailable", metadata: ["operation": "\(what)", "reason": "\(reason)"])
    return RegistryStoreError.unavailable(reason)
  }

  /// Connects once (outside the pool) and runs `body`: opening the store, and tests.
  static func withConnection<T: Sendable>(
    _ configuration: Configuration, logger: Logger, _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let connection: PostgresConnection
    do {
      connection = try await PostgresConnection.connect(
        configuration: try configuration.connectionConfiguration(), id: 0, logger: logger)
    } catch {
      throw RegistryStoreError.unavailable(
        "cannot connect to PostgreSQL at \(configuration.endpoint) (database \(configuration.database), user "
          + "\(configuration.username)): \(describe(error))")
    }
    do {
      let value = try await body(connection)
      try? await connection.close()
      return value
    } catch {
      try? await connection.close()
      if let error = error as? PSQLError, isConnectionFailure(error) {
        throw RegistryStoreError.unavailable(
          "lost the connection to PostgreSQL at \(configuration.endpoint): \(describe(error))")
      }
      throw error
    }
  }

  /// Errors that mean the server is gone or going: lost connections, and the server's own
  /// connection-exception (`08…`), shutdown (`57P…`) and out-of-resources (`53…`) errors.
  static func isConnectionFailure(_ error: PSQLError) -> Bool {
    switch error.code {
    case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
         .sslUnsupported, .failedToAddSSLHandler, .messageDecodingFailure:
      return true
    case .server:
      let state = error.serverInfo?[.sqlState] ?? ""
      return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53")
    default:
      return false
    }
  }

  /// Serialization failures and deadlocks: the transaction can simply run again.
  static func isRetryable(_ error: PSQLError) -> Bool {
    error.code == .server && ["40001", "40P01"].contains(error.serverInfo?[.sqlState] ?? "")
  }

  /// A readable account of a PostgresNIO error (its `description` hides the details on purpose).
  static func describe(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    if let info = error.serverInfo, let message = info[.message] {
      return "\(message) (SQLSTATE \(info[.sqlState] ?? "?"))"
    }
    if let underlying = error.underlying { return "\(error.code): \(underlying)" }
    return "\(error.code)"
  }
}
