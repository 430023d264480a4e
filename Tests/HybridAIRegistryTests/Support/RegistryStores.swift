import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing
@testable import HybridAIRegistry

/// The two stores the registry ships, for tests that hold for both.
typealias StoreKind = RunningRegistry.StoreKind

extension RunningRegistry.StoreKind: CustomTestStringConvertible {
  public var testDescription: String { rawValue }
}

enum RegistryStores {
  /// Runs `body` with an empty store of `kind`: a SQLite file in a temporary directory, or a fresh
  /// database on the test run's shared PostgreSQL server; shuts the store down and cleans up after.
  static func with<T>(_ kind: StoreKind, _ body: (any RegistryStore) async throws -> T) async throws -> T {
    switch kind {
    case .sqlite:
      return try await TemporaryDirectory.with("store") { directory in
        let store = try SQLiteRegistryStore(path: directory.appending("registry.sqlite").path)
        return try await body(store)
      }
    case .postgres:
      let postgres = try await TemporaryPostgres.shared()
      let store = try await PostgresRegistryStore(configuration: postgres.configuration(database: try await postgres.createDatabase()),
                                                  logger: TestLogging.logger("registry.postgres"))
      do {
        let result = try await body(store)
        await store.shutdown()
        return result
      } catch {
        await store.shutdown()
        throw error
      }
    }
  }
}
