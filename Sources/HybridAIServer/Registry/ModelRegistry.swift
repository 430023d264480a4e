import Foundation
import Logging
import NIOCore

/// The model registry inside `hybrid serve`: deploy model files, publish them, split
/// installations among versions, and hand out signed, expiring download URLs
/// (see docs/model-delivery.md for the wire protocol).
///
/// ```swift
/// let registry = try ModelRegistry(configuration: RegistryConfiguration(
///   dataDirectory: URL(filePath: "/var/lib/hybrid"), adminToken: "s3cret"))
/// let server = GeminiCompatibleServer(models: [], registry: registry)
/// try await server.run()
/// ```
///
/// Everything lives in ``RegistryConfiguration/dataDirectory``: metadata in `registry.sqlite`
/// (unless another ``RegistryStore`` is given), model files in `blobs/`, uploads in progress in
/// `uploads/`, and the URL signing key in `signing.key` (mode 0600, generated on first start).
public final class ModelRegistry: Sendable {
  public let configuration: RegistryConfiguration
  let store: any RegistryStore
  let blobs: BlobStore
  let signer: DownloadURLSigner
  /// The OpenAPI document served at `GET /v1/openapi.yaml`.
  let openAPIDocument: ByteBuffer
  /// The current time; injectable so that tests can move past a URL's expiry without waiting.
  let now: @Sendable () -> Date
  let logger: Logger
  /// Serializes the steps that add or remove blobs, so that a blob is never deleted between being
  /// stored and being referenced by its new version.
  private let blobChanges = SerialAsyncQueue()

  /// Opens the registry in `configuration.dataDirectory`, creating what is missing.
  ///
  /// - Parameters:
  ///   - store: Where metadata lives; `nil` opens ``SQLiteRegistryStore`` at `DIR/registry.sqlite`.
  ///   - now: The clock download URLs are signed and checked against.
  public init(configuration: RegistryConfiguration, store: (any RegistryStore)? = nil,
              now: @escaping @Sendable () -> Date = { Date() },
              logger: Logger = Logger(label: "HybridAI.registry")) throws {
    let directory = configuration.dataDirectory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.configuration = configuration
    self.store = try store ?? SQLiteRegistryStore(path: directory.appending(path: "registry.sqlite").path, logger: logger)
    blobs = try BlobStore(dataDirectory: directory, logger: logger)
    signer = try DownloadURLSigner.loadingOrCreatingKey(at: directory.appending(path: "signing.key").path, logger: logger)
    openAPIDocument = try Self.loadOpenAPIDocument()
    self.now = now
    self.logger = logger
    logger.info("model registry ready", metadata: [
      "dataDirectory": "\(directory.path)", "admin": "\(configuration.adminToken == nil ? "off" : "on")",
      "maxUploadBytes": "\(configuration.maxUploadBytes)", "publicURL": "\(configuration.publicURL?.absoluteString ?? "-")",
    ])
  }

  private static func loadOpenAPIDocument() throws -> ByteBuffer {
    guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
      throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "openapi.yaml (HybridAIServer resources)"])
    }
    return ByteBuffer(data: try Data(contentsOf: url))
  }

  // MARK: - Models

  func models() async throws -> [RegistryModel] {
    try await store.models()
  }

  func model(named name: String) async throws -> RegistryModel {
    guard let model = try await store.model(named: name) else { throw GoogleAPIError.from(storeError: .modelNotFound(name)) }
    return model
  }

  func createModel(named name: String, description: String, tags: [String]) async throws -> RegistryModel {
    let model = RegistryModel(name: name, description: description, tags: tags, createTime: wholeSecondsNow())
    try await storeCall { try await self.store.createModel(model) }
    logger.info("model created", metadata: ["model": "\(name)"])
    return model
  }

  /// Deletes the model with its versions and roll-out, and the blobs no other version uses.
  func deleteModel(named name: String) async throws {
    let removedBlobs = try await blobChanges.run {
      let model = try await self.model(named: name)
      try await self.storeCall { try await self.store.deleteModel(named: name) }
      return try await self.removeUnreferencedBlobs(Set(model.versions.map(\.sha256)))
    }
    logger.info("model deleted", metadata: ["model": "\(name)", "blobsRemoved": "\(removedBlobs)"])
  }

  // MARK: - Versions

  /// Streams an upload into the blob store and adds it to the model as a draft version.
  func addVersion<Body: AsyncSequence>(toModel name: String, body: Body, declaredLength: Int64) async throws
    -> RegistryModel.Version where Body.Element == ByteBuffer {
    _ = try await model(named: name)   // refuse before reading the body
    let staged: StagedBlob
    do {
      staged = try await blobs.receive(body, declaredLength: declaredLength)
    } catch let failure as UploadFailure {
      logger.info("upload refused", metadata: ["model": "\(name)", "reason": "\(failure)"])
      switch failure {
      case .longerThanDeclared(let declared):
        throw GoogleAPIError.invalidArgument("The upload is longer than its Content-Length (\(declared) bytes).")
      case .shorterThanDeclared(let declared, let received):
        throw GoogleAPIError.invalidArgument("The upload ended after \(received) of its \(declared) bytes.")
      }
    } catch let error as BlobStoreError {
      logger.error("upload failed", metadata: ["model": "\(name)", "error": "\(error)"])
      throw GoogleAPIError.internal("The upload could not be stored.")
    } catch {
      logger.info("upload interrupted", metadata: ["model": "\(name)", "error": "\(error)"])
      throw GoogleAPIError.invalidArgument("The upload was interrupted before its \(declaredLength) bytes arrived.")
    }
    let createTime = wholeSecondsNow()
    let (version, isNewBlob) = try await blobChanges.run {
      let isNewBlob = try self.blobs.store(staged)
      do {
        let version = try await self.storeCall {
          try await self.store.addVersion(toModel: name, sha256: staged.sha256, sizeBytes: staged.sizeBytes,
                                          format: staged.format, createTime: createTime)
        }
        return (version, isNewBlob)
      } catch {
        _ = try? await self.removeUnreferencedBlobs([staged.sha256])   // the model went away meanwhile
        throw error
      }
    }
    logger.info("model version uploaded", metadata: [
      "model": "\(name)", "version": "\(version.number)", "sha256": "\(version.sha256)",
      "sizeBytes": "\(version.sizeBytes)", "format": "\(version.format.rawValue)", "newBlob": "\(isNewBlob)",
    ])
    return version
  }

  func setState(_ state: RegistryModel.Version.State, ofVersion version: Int, inModel name: String) async throws
    -> RegistryModel {
    let model = try await storeCall { try await self.store.setState(state, ofVersion: version, inModel: name) }
    logger.info("model version \(state == .published ? "published" : "unpublished")", metadata: [
      "model": "\(name)", "version": "\(version)", "rollout": "\(model.rollout == nil ? "none" : "kept")",
    ])
    return model
  }

  /// Deletes a version, the roll-out if it names it, and its blob when no other version uses it.
  func deleteVersion(_ version: Int, ofModel name: String) async throws {
    let removedBlobs = try await blobChanges.run {
      let model = try await self.model(named: name)
      guard let doomed = model.version(version) else {
        throw GoogleAPIError.from(storeError: .versionNotFound(model: name, version: version))
      }
      try await self.storeCall { try await self.store.deleteVersion(version, ofModel: name) }
      return try await self.removeUnreferencedBlobs([doomed.sha256])
    }
    logger.info("model version deleted", metadata: ["model": "\(name)", "version": "\(version)", "blobsRemoved": "\(removedBlobs)"])
  }

  // MARK: - Roll-outs

  /// Sets (or with `nil` removes) the model's roll-out. The caller has checked that the splits are
  /// well formed and sum to 100 %; the store checks that they name published versions.
  func setRollout(_ rollout: RegistryModel.Rollout?, ofModel name: String) async throws -> RegistryModel {
    let model = try await storeCall { try await self.store.setRollout(rollout, ofModel: name) }
    logger.info("model roll-out \(rollout == nil ? "removed" : "set")", metadata: [
      "model": "\(name)",
      "splits": "\(rollout?.splits.map { "\($0.version):\($0.basisPoints)bp" }.joined(separator: ",") ?? "-")",
    ])
    return model
  }

  // MARK: - Serving

  /// The version an installation gets: its roll-out split's, else the newest published one.
  func servedVersion(of model: RegistryModel, installationId: String) -> RegistryModel.Version? {
    if let rollout = model.rollout {
      let bucket = RolloutBucket.bucket(modelName: model.name, installationId: installationId)
      if let number = RolloutBucket.version(forBucket: bucket, in: rollout),
         let version = model.version(number), version.state == .published {
        return version
      }
    }
    return model.newestPublishedVersion
  }

  /// `/v1/blobs/<sha256>?expires=…&signature=…` under `baseURL`, valid for
  /// ``RegistryConfiguration/downloadURLLifetime``; also returns the expiry.
  func signedBlobURL(sha256: String, baseURL: String) -> (url: String, expires: Date) {
    let lifetime = configuration.downloadURLLifetime.components.seconds
    let expires = Int64(now().timeIntervalSince1970.rounded(.down)) + max(lifetime, 1)
    let signature = signer.signature(sha256: sha256, expires: expires)
    return ("\(baseURL)/v1/blobs/\(sha256)?expires=\(expires)&signature=\(signature)",
            Date(timeIntervalSince1970: TimeInterval(expires)))
  }

  // MARK: - Helpers

  private func wholeSecondsNow() -> Date {
    Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
  }

  /// Runs a store call, turning its refusals into API errors.
  private func storeCall<T: Sendable>(_ call: @Sendable () async throws -> T) async throws -> T {
    do {
      return try await call()
    } catch let error as RegistryStoreError {
      throw GoogleAPIError.from(storeError: error)
    }
  }

  /// Deletes those of `candidates` that no version refers to; returns how many. Runs inside
  /// `blobChanges`.
  private func removeUnreferencedBlobs(_ candidates: Set<String>) async throws -> Int {
    var removed = 0
    for sha256 in candidates.sorted() where try await !store.isBlobReferenced(sha256: sha256) {
      try blobs.removeBlob(sha256)
      removed += 1
    }
    return removed
  }
}
