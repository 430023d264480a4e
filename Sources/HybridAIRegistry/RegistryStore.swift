import Foundation
import HybridAIWire

/// Where the registry keeps its metadata: models, their versions and roll-outs. Blobs (the model
/// files) live elsewhere (see ``ModelRegistry``); a version refers to its blob by SHA-256.
///
/// Implementations keep the referential rules themselves, atomically, as a database would:
/// a roll-out names only published versions of its model; unpublishing or deleting a version that
/// the roll-out names removes the roll-out; deleting a model deletes its versions and roll-out.
/// Two ship: ``SQLiteRegistryStore`` (one file, one writing process) and ``PostgresRegistryStore``
/// (a database that several `hybrid serve` instances share); ``RegistryDatabase`` picks one from a URL.
///
/// ``ModelRegistry`` answers reads from an in-memory copy of a store that is not ``isShared``,
/// updated after each of its own changes, so it must be that store's only writer; a shared
/// store's reads go to the store itself (see ``ModelRegistry``).
///
/// A store that cannot reach its database throws ``RegistryStoreError/unavailable(_:)`` (the
/// registry answers `503 UNAVAILABLE`).
public protocol RegistryStore: Sendable {
  /// Whether other processes may change this store while a ``ModelRegistry`` uses it (a database
  /// server shared by several instances). Then the registry keeps no snapshot: every read goes to
  /// the store. `false` by default.
  var isShared: Bool { get }

  /// Releases the store's connections (``PostgresRegistryStore``: later calls throw
  /// ``RegistryStoreError/unavailable(_:)``). Idempotent; does nothing by default (SQLite).
  func shutdown() async

  /// A quick answer to "can the database be reached at all?" for readiness checks — why not
  /// (refused, unreachable), or `nil` when it can or when the store cannot tell without a query.
  /// Must return within a second or two. `nil` by default (a local file).
  func reachabilityProblem() async -> String?

  /// All models, by name.
  func models() async throws -> [ModelRecord]

  /// The model named `name`, or `nil`.
  func model(named name: String) async throws -> ModelRecord?

  /// Adds a model without versions. Throws ``RegistryStoreError/modelAlreadyExists(_:)``.
  func createModel(_ model: ModelRecord) async throws

  /// Deletes a model with its versions and roll-out. Throws ``RegistryStoreError/modelNotFound(_:)``.
  func deleteModel(named name: String) async throws

  /// Adds a draft version numbered one above the model's highest number ever. Throws
  /// ``RegistryStoreError/modelNotFound(_:)``.
  func addVersion(toModel name: String, sha256: String, sizeBytes: Int64, format: ModelFormat,
                  createTime: Date) async throws -> ModelRecord.Version

  /// Publishes or unpublishes a version; unpublishing one that the roll-out names removes the
  /// roll-out. Returns the model as it is now. Throws `modelNotFound`, `versionNotFound`.
  func setState(_ state: ModelRecord.Version.State, ofVersion version: Int,
                inModel name: String) async throws -> ModelRecord

  /// Deletes a version; deleting one that the roll-out names removes the roll-out. Throws
  /// `modelNotFound`, `versionNotFound`.
  func deleteVersion(_ version: Int, ofModel name: String) async throws

  /// Replaces the model's roll-out (`nil` removes it) and returns the model as it is now. Throws
  /// `modelNotFound`, `versionNotFound`, or `versionNotPublished` when a split names a draft.
  func setRollout(_ rollout: ModelRecord.Rollout?, ofModel name: String) async throws -> ModelRecord

  /// Whether any version of any model refers to the blob `sha256`.
  func isBlobReferenced(sha256: String) async throws -> Bool
}

extension RegistryStore {
  /// Not shared: one ``ModelRegistry`` is the only writer.
  public var isShared: Bool { false }

  /// Nothing to release.
  public func shutdown() async {}

  /// Nothing to reach.
  public func reachabilityProblem() async -> String? { nil }
}

/// Why a ``RegistryStore`` refused a change.
public enum RegistryStoreError: Error, Sendable, Hashable {
  /// No model has this name.
  case modelNotFound(String)
  /// A model with this name exists already.
  case modelAlreadyExists(String)
  /// The model has no version with this number.
  case versionNotFound(model: String, version: Int)
  /// A roll-out named a version that is a draft.
  case versionNotPublished(model: String, version: Int)
  /// The database cannot be reached or stopped answering (refused or lost connection, server
  /// shutting down, no answer in time, store shut down); the message says which and where. The
  /// change may or may not have been made; trying again later is safe for reads.
  case unavailable(String)
  /// The database's schema is newer than this code knows (a newer `hybrid` migrated it).
  case unsupportedSchemaVersion(found: Int, newestKnown: Int)
}

extension RegistryStoreError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .modelNotFound(let name): "model \(name) not found"
    case .modelAlreadyExists(let name): "model \(name) already exists"
    case .versionNotFound(let model, let version): "version \(version) of model \(model) not found"
    case .versionNotPublished(let model, let version): "version \(version) of model \(model) is not published"
    case .unavailable(let reason): "registry database unavailable: \(reason)"
    case .unsupportedSchemaVersion(let found, let newestKnown):
      "the registry database has schema version \(found); this build knows versions up to \(newestKnown) (upgrade hybrid)"
    }
  }
}
