import Foundation
import Logging

/// Where the registry's metadata lives, chosen by a URL (`hybrid serve --registry-database URL`):
///
/// | URL | store |
/// |---|---|
/// | `sqlite:PATH` (also `sqlite://PATH`) | ``SQLiteRegistryStore`` at `PATH` (one writing process) |
/// | `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (also `postgresql://`) | ``PostgresRegistryStore`` (shared by several instances) |
///
/// PostgreSQL URLs: user, password and database are percent-decoded; the port defaults to 5432 and
/// the database to the user's name. One query parameter is understood, `sslmode`: `disable`,
/// `prefer` (the default: TLS when the server offers it), `require` or `verify-full` (TLS with the
/// certificate checked against the system's trust roots and the host name). Anything else is a
/// ``RegistryDatabaseURLError``.
///
/// ```swift
/// let database = try RegistryDatabase(url: "postgres://hybrid:secret@db.internal:5432/registry?sslmode=require")
/// let store = try await database.openStore()          // throws RegistryStoreError.unavailable when unreachable
/// let registry = try ModelRegistry(configuration: configuration, store: store)
/// …
/// await store.shutdown()
/// ```
public enum RegistryDatabase: Sendable, Hashable {
  /// A SQLite file (created when missing).
  case sqlite(path: String)
  /// A PostgreSQL database.
  case postgres(PostgresRegistryStore.Configuration)

  /// Parses `url` (see ``RegistryDatabase``).
  public init(url: String) throws(RegistryDatabaseURLError) {
    if url.hasPrefix("sqlite:") {
      var path = String(url.dropFirst("sqlite:".count))
      if path.hasPrefix("//") { path.removeFirst(2) }
      guard !path.isEmpty else { throw .malformed(url: url, reason: "sqlite: needs a file path (sqlite:PATH)") }
      self = .sqlite(path: path)
      return
    }
    self = .postgres(try PostgresRegistryStore.Configuration(url: url))
  }

  /// Opens the store: the SQLite file (creating it and its folder), or a connection to PostgreSQL that checks
  /// the server answers and brings the schema up to date. Call ``RegistryStore/shutdown()`` when done.
  ///
  /// - Throws: ``RegistryStoreError/unavailable(_:)`` naming `host:port` when PostgreSQL cannot
  ///   be reached; GRDB's errors for a SQLite file that cannot be opened.
  public func openStore(logger: Logger = Logger(label: "HybridAI.registry.store")) async throws -> any RegistryStore {
    switch self {
    case .sqlite(let path):
      let folder = URL(filePath: path).deletingLastPathComponent()
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return try SQLiteRegistryStore(path: path, logger: logger)
    case .postgres(let configuration):
      return try await PostgresRegistryStore(configuration: configuration, logger: logger)
    }
  }

  /// The URL without its password, for logs and messages.
  public var redactedDescription: String {
    switch self {
    case .sqlite(let path): "sqlite:\(path)"
    case .postgres(let configuration): configuration.redactedDescription
    }
  }
}

/// Why a registry database URL was refused.
public enum RegistryDatabaseURLError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Neither `sqlite:`, `postgres://` nor `postgresql://`.
  case unsupportedScheme(String)
  /// The URL could not be read; `reason` says what is wrong. The URL is shown without its password.
  case malformed(url: String, reason: String)
  /// An `sslmode` other than `disable`, `prefer`, `require` or `verify-full`.
  case unsupportedSSLMode(String)
  /// A query parameter other than `sslmode`.
  case unsupportedParameter(String)

  public var description: String {
    switch self {
    case .unsupportedScheme(let scheme):
      "unsupported registry database URL scheme \"\(scheme)\"; use sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE"
    case .malformed(let url, let reason): "malformed registry database URL \(url): \(reason)"
    case .unsupportedSSLMode(let mode):
      "unsupported sslmode \"\(mode)\"; use disable, prefer, require or verify-full"
    case .unsupportedParameter(let name): "unsupported registry database URL parameter \"\(name)\"; only sslmode is understood"
    }
  }
}
