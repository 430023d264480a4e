import Foundation
import HybridAITestSupport
import Testing
@testable import HybridAIRegistry

/// `--registry-database` URLs: which store, where, and what is refused.
@Suite("Registry database URLs")
struct RegistryDatabaseTests {
  @Test("postgres:// and postgresql:// URLs")
  func postgresURLs() throws {
    let full = try RegistryDatabase(url: "postgres://hybrid:s%40cret@db.internal:6543/models?sslmode=disable")
    #expect(full == .postgres(.init(host: "db.internal", port: 6543, username: "hybrid", password: "s@cret",
                                    database: "models", tls: .disable)))
    #expect(full.redactedDescription == "postgres://hybrid:***@db.internal:6543/models?sslmode=disable")

    guard case .postgres(let short) = try RegistryDatabase(url: "postgresql://reader@10.0.0.5/") else {
      Issue.record("not PostgreSQL"); return
    }
    #expect(short.port == 5432)
    #expect(short.database == "reader", "the database defaults to the user's name, as in libpq")
    #expect(short.password == nil)
    #expect(short.tls == .prefer)
    #expect(short.operationTimeout == .seconds(10) && short.connectTimeout == .seconds(5) && short.rateLimitTimeout == .seconds(1))

    guard case .postgres(let timed) = try RegistryDatabase(
      url: "postgres://u@h/d?connect_timeout=2&operation_timeout=1.5&rate_limit_timeout=0.25") else {
      Issue.record("not PostgreSQL"); return
    }
    #expect(timed.connectTimeout == .seconds(2) && timed.operationTimeout == .milliseconds(1500))
    #expect(timed.rateLimitTimeout == .milliseconds(250))
    #expect(short.endpoint == "10.0.0.5:5432")

    guard case .postgres(let v6) = try RegistryDatabase(url: "postgres://u@[::1]:5433/d?sslmode=verify-full") else {
      Issue.record("not PostgreSQL"); return
    }
    #expect(v6.host == "::1")
    #expect(v6.endpoint == "[::1]:5433")
    #expect(v6.tls == .verifyFull)
    for mode in PostgresRegistryStore.Configuration.TLSMode.allCases {
      guard case .postgres(let parsed) = try RegistryDatabase(url: "postgres://u@h/d?sslmode=\(mode.rawValue)") else {
        Issue.record("not PostgreSQL"); continue
      }
      #expect(parsed.tls == mode)
    }
  }

  @Test("sqlite:PATH")
  func sqliteURLs() throws {
    #expect(try RegistryDatabase(url: "sqlite:/var/lib/hybrid/registry.sqlite") == .sqlite(path: "/var/lib/hybrid/registry.sqlite"))
    #expect(try RegistryDatabase(url: "sqlite:///var/lib/registry.sqlite") == .sqlite(path: "/var/lib/registry.sqlite"))
    #expect(try RegistryDatabase(url: "sqlite:registry.sqlite") == .sqlite(path: "registry.sqlite"))
  }

  @Test("sqlite:PATH opens a SQLite store there, creating its folder; it is not shared")
  func openSQLite() async throws {
    try await TemporaryDirectory.with("database-url") { directory in
      let path = directory.appending("nested/registry.sqlite").path
      let store = try await RegistryDatabase(url: "sqlite:\(path)").openStore(logger: TestLogging.logger("registry.store"))
      #expect(store is SQLiteRegistryStore)
      #expect(!store.isShared)
      #expect(FileManager.default.fileExists(atPath: path))
      await store.shutdown()
    }
  }

  @Test("anything else is a typed error")
  func refusals() {
    #expect(throws: RegistryDatabaseURLError.unsupportedScheme("mysql")) { try RegistryDatabase(url: "mysql://u@h/d") }
    #expect(throws: RegistryDatabaseURLError.unsupportedScheme("registry.db")) { try RegistryDatabase(url: "registry.db") }
    #expect(throws: RegistryDatabaseURLError.unsupportedSSLMode("allow")) { try RegistryDatabase(url: "postgres://u@h/d?sslmode=allow") }
    #expect(throws: RegistryDatabaseURLError.unsupportedParameter("application_name")) {
      try RegistryDatabase(url: "postgres://u@h/d?application_name=x")
    }
    #expect(throws: RegistryDatabaseURLError.self) { try RegistryDatabase(url: "postgres://u@h/d?operation_timeout=0") }
    #expect(throws: RegistryDatabaseURLError.self) { try RegistryDatabase(url: "postgres://u@h/d?rate_limit_timeout=soon") }
    #expect(throws: RegistryDatabaseURLError.self) { try RegistryDatabase(url: "postgres://u@h/d?connect_timeout=soon") }
    #expect(throws: RegistryDatabaseURLError.malformed(url: "sqlite:", reason: "sqlite: needs a file path (sqlite:PATH)")) {
      try RegistryDatabase(url: "sqlite:")
    }
    for url in ["postgres://h/d", "postgres:///d", "postgres://u:p@h/a/b", "postgres://u@h:99999/d", "postgres://u@h:port/d"] {
      #expect(throws: RegistryDatabaseURLError.self, "\(url)") { try RegistryDatabase(url: url) }
    }
    do {
      _ = try RegistryDatabase(url: "postgres://u:topsecret@h/a/b")
    } catch {
      #expect(!"\(error)".contains("topsecret"), "the password never appears in the error")
    }
  }
}
