import Foundation
import HybridAIWire

/// Where the registry keeps its metadata: models, their versions and roll-outs. Blobs (the model
/// files) live elsewhere (see ``ModelRegistry``); a version refers to its blob by SHA-256.
///
/// Implementations keep the referential rules themselves, atomically, as a database would:
/// a roll-out names only published versions of its model; unpublishing or deleting a version that
/// the roll-out names removes the roll-out; deleting a model deletes its versions and roll-out.
/// ``SQLiteRegistryStore`` is the one that ships.
///
/// ``ModelRegistry`` answers reads from an in-memory copy of the store that it updates after each
/// of its own changes, so it must be the store's only writer (see ``ModelRegistry``).
public protocol RegistryStore: Sendable {
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
}
