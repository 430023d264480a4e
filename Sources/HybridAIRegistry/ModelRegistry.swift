import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIServing
import Logging
import NIOCore
import Synchronization

/// The model registry inside `hybrid serve`: deploy model files, publish them, split
/// installations among versions, and hand out signed, expiring download URLs
/// (see docs/model-delivery.md for the wire protocol).
///
/// ```swift
/// let registry = try ModelRegistry(configuration: RegistryConfiguration(
///   dataDirectory: URL(filePath: "/var/lib/hybrid"), adminToken: "s3cret"))
/// let server = HybridServer(components: [RegistryAPI(registry: registry)])
/// try await server.run()
/// ```
///
/// Everything lives in ``RegistryConfiguration/dataDirectory``: metadata in `registry.sqlite`
/// (unless another ``RegistryStore`` is given), model files in `blobs/`, uploads in progress in
/// `uploads/`, and the URL signing key in `signing.key` (mode 0600, generated on first start).
///
/// ## One writer per directory, unless the store is shared
///
/// The store is the source of truth. With a store that is not ``RegistryStore/isShared`` (SQLite),
/// reads are answered from an in-memory snapshot of every model (versions and roll-out included),
/// loaded from the store on first use and brought up to date by each change made through this
/// registry before that change's reply is sent. Changes are made one at a time. So **only one
/// process, through one `ModelRegistry`, may write such a store**: a change made behind its back
/// (another server on the same directory, a hand edit of `registry.sqlite`) is not seen until restart.
///
/// With a shared store (``PostgresRegistryStore``) there is no snapshot: every read asks the
/// store, so several instances see each other's changes at once, and the store's transactions keep
/// concurrent changes consistent. Those instances must also share the data directory (blobs and
/// the signing key), e.g. on a shared file system.
public final class ModelRegistry: Sendable {
  /// Where the registry lives and how it answers.
  public let configuration: RegistryConfiguration
  let store: any RegistryStore
  let blobs: ModelFiles
  let signer: DownloadURLSigner
  /// The OpenAPI document served at `GET /v1/openapi.yaml`; `nil` when the resource is not installed.
  let openAPIDocument: ByteBuffer?
  /// The current time; injectable so that tests can move past a URL's expiry without waiting.
  let now: @Sendable () -> Date
  let logger: Logger
  /// Serializes every metadata change with the snapshot update that follows it (so that updates
  /// land in the order of the changes) and with the steps that add or remove blobs (so that a blob
  /// is never deleted between being stored and being referenced by its new version).
  private let changes = SerialAsyncQueue()
  /// What reads are answered from: the store's models by name (see "One writer per directory").
  /// Unused with a shared store.
  private let snapshot = Mutex(ModelSnapshot())
  /// Whether reads go to the store (``RegistryStore/isShared``) rather than to the snapshot.
  private let readsFromStore: Bool

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
    let store = try store ?? SQLiteRegistryStore(path: directory.appending(path: "registry.sqlite").path, logger: logger)
    self.store = store
    readsFromStore = store.isShared
    blobs = try ModelFiles(dataDirectory: directory, logger: logger)
    signer = try DownloadURLSigner.loadingOrCreatingKey(at: directory.appending(path: "signing.key").path, logger: logger)
    openAPIDocument = Self.loadOpenAPIDocument()
    if openAPIDocument == nil {
      logger.warning("the OpenAPI document is not installed beside the executable; GET /v1/openapi.yaml answers 404", metadata: [
        "expected": "\(Self.openAPIDocumentCandidates.map(\.path).joined(separator: ", "))",
      ])
    }
    self.now = now
    self.logger = logger
    logger.info("model registry ready", metadata: [
      "dataDirectory": "\(directory.path)", "admin": "\(configuration.adminToken == nil ? "off" : "on")",
      "maxUploadBytes": "\(configuration.maxUploadBytes)", "publicURL": "\(configuration.publicURL?.absoluteString ?? "-")",
      "reads": "\(readsFromStore ? "from the shared store" : "from a snapshot")",
    ])
  }

  /// Where the document may be (``HybridAIServing/InstalledResource``).
  static var openAPIDocumentCandidates: [URL] {
    InstalledResource.candidates(bundle: openAPIBundle, path: "openapi.yaml", sourceDirectory: sourceDirectory)
  }

  private static let openAPIBundle = "HybridAI_HybridAIRegistry.resources"
  private static var sourceDirectory: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent() }

  private static func loadOpenAPIDocument() -> ByteBuffer? {
    InstalledResource.contents(bundle: openAPIBundle, path: "openapi.yaml", sourceDirectory: sourceDirectory)
      .map { ByteBuffer(data: $0) }
  }

  // MARK: - Readiness

  /// Why the registry cannot serve now — its database refuses or does not answer within 2 s, or
  /// its directory is not writable — or `nil` when it can (a server's `/readyz` check; it answers
  /// within about 2 s, as a load balancer's probe expects).
  public func readinessProblem() async -> String? {
    if let problem = await store.reachabilityProblem() { return "the registry store cannot be reached: \(problem)" }
    let store = store
    do {
      _ = try await Deadline.run(within: .seconds(2)) { try await store.model(named: "-") }   // reaches the store, not the snapshot
    } catch is Deadline.Expired {
      return "the registry store did not answer within 2 s"
    } catch {
      return "the registry store does not answer: \(error)"
    }
    let directory = configuration.dataDirectory.path
    guard FileManager.default.isWritableFile(atPath: directory) else {
      return "the registry directory \(directory) is not writable"
    }
    return nil
  }

  // MARK: - Models

  /// All models, by name, from the snapshot.
  func models() async throws -> [ModelRecord] {
    try await currentModels().values.sorted { $0.name < $1.name }
  }

  /// The model named `name` from the snapshot (or a shared store); throws a `404` when there is none.
  func model(named name: String) async throws -> ModelRecord {
    if readsFromStore {
      guard let model = try await readingStore({ try await self.store.model(named: name) }) else {
        throw GoogleAPIError.from(storeError: .modelNotFound(name))
      }
      return model
    }
    let cached = snapshot.withLock { snapshot in snapshot.models.map { $0[name] } }
    let model: ModelRecord?
    switch cached {
    case .some(let found): model = found
    case .none: model = try await currentModels()[name]
    }
    guard let model else { throw GoogleAPIError.from(storeError: .modelNotFound(name)) }
    return model
  }

  func createModel(named name: String, description: String, tags: [String]) async throws -> ModelRecord {
    let model = ModelRecord(name: name, description: description, tags: tags, createTime: wholeSecondsNow())
    try await changes.run { try await self.write(model: name) { try await self.store.createModel(model) } }
    logger.info("model created", metadata: ["model": "\(name)"])
    return model
  }

  /// Deletes the model with its versions and roll-out, and the blobs no other version uses.
  func deleteModel(named name: String) async throws {
    let removedBlobs = try await changes.run {
      let model = try await self.model(named: name)
      try await self.write(model: name) { try await self.store.deleteModel(named: name) }
      return try await self.removeUnreferencedBlobs(Set(model.versions.map(\.sha256)))
    }
    logger.info("model deleted", metadata: ["model": "\(name)", "blobsRemoved": "\(removedBlobs)"])
  }

  // MARK: - Versions

  /// Version `number` of the model `name`, from the snapshot; throws a `404` when either is missing.
  func version(_ number: Int, ofModel name: String) async throws -> ModelRecord.Version {
    guard let version = try await model(named: name).version(number) else {
      throw GoogleAPIError.from(storeError: .versionNotFound(model: name, version: number))
    }
    return version
  }

  /// What the client of an upload the blob store could not take is told: 507 when the disk is full
  /// (or the quota spent), so it can tell "try later, elsewhere" from a fault; 500 otherwise. The
  /// path and the system's words stay in the log.
  static func uploadError(for error: BlobStoreError) -> GoogleAPIError {
    if let code = error.code, code == ENOSPC || code == EDQUOT {
      return .insufficientStorage("The registry has no space left for this upload.")
    }
    return .internal("The upload could not be stored.")
  }

  /// Streams an upload into the blob store and adds it to the model as a draft version.
  func addVersion<Body: AsyncSequence>(toModel name: String, body: Body, declaredLength: Int64) async throws
    -> ModelRecord.Version where Body.Element == ByteBuffer {
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
      throw Self.uploadError(for: error)
    } catch {
      logger.info("upload interrupted", metadata: ["model": "\(name)", "error": "\(error)"])
      throw GoogleAPIError.invalidArgument("The upload was interrupted before its \(declaredLength) bytes arrived.")
    }
    let createTime = wholeSecondsNow()
    let (version, isNewBlob) = try await changes.run {
      let isNewBlob = try self.blobs.store(staged)
      do {
        let version = try await self.write(model: name) {
          try await self.store.addVersion(toModel: name, sha256: staged.sha256, sizeBytes: staged.sizeBytes,
                                          format: staged.format, createTime: createTime)
        }
        return (version, isNewBlob)
      } catch {
        // The model went away meanwhile, or the store did: then the blob waits for a later sweep.
        if (try? await self.removeUnreferencedBlobs([staged.sha256])) == nil, isNewBlob {
          self.logger.warning("a blob no version records stays until the store answers", metadata: ["sha256": "\(staged.sha256)"])
        }
        throw error
      }
    }
    logger.info("model version uploaded", metadata: [
      "model": "\(name)", "version": "\(version.number)", "sha256": "\(version.sha256)",
      "sizeBytes": "\(version.sizeBytes)", "format": "\(version.format.rawValue)", "newBlob": "\(isNewBlob)",
    ])
    return version
  }

  func setState(_ state: ModelRecord.Version.State, ofVersion version: Int, inModel name: String) async throws
    -> ModelRecord {
    let model = try await changes.run {
      try await self.write(model: name) { try await self.store.setState(state, ofVersion: version, inModel: name) }
    }
    logger.info("model version \(state == .published ? "published" : "unpublished")", metadata: [
      "model": "\(name)", "version": "\(version)", "rollout": "\(model.rollout == nil ? "none" : "kept")",
    ])
    return model
  }

  /// Deletes a version, the roll-out if it names it, and its blob when no other version uses it.
  func deleteVersion(_ version: Int, ofModel name: String) async throws {
    let removedBlobs = try await changes.run {
      let doomed = try await self.version(version, ofModel: name)
      try await self.write(model: name) { try await self.store.deleteVersion(version, ofModel: name) }
      return try await self.removeUnreferencedBlobs([doomed.sha256])
    }
    logger.info("model version deleted", metadata: ["model": "\(name)", "version": "\(version)", "blobsRemoved": "\(removedBlobs)"])
  }

  // MARK: - Roll-outs

  /// Sets (or with `nil` removes) the model's roll-out. The caller has checked that the splits are
  /// well formed and sum to 100 %; the store checks that they name published versions.
  func setRollout(_ rollout: ModelRecord.Rollout?, ofModel name: String) async throws -> ModelRecord {
    let model = try await changes.run {
      try await self.write(model: name) { try await self.store.setRollout(rollout, ofModel: name) }
    }
    logger.info("model roll-out \(rollout == nil ? "removed" : "set")", metadata: [
      "model": "\(name)",
      "splits": "\(rollout?.splits.map { "\($0.version):\($0.basisPoints)bp" }.joined(separator: ",") ?? "-")",
    ])
    return model
  }

  // MARK: - Serving

  /// The version an installation gets: its roll-out split's, else the newest published one.
  func servedVersion(of model: ModelRecord, installationId: String) -> ModelRecord.Version? {
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

  /// Runs a store call that changes the model `name`, turning its refusals into API errors, then
  /// brings the snapshot's entry for the model up to date, whether the call succeeded or not (a
  /// failed commit may still have changed something). Runs inside `changes`.
  private func write<T: Sendable>(model name: String, _ call: @Sendable () async throws -> T) async throws -> T {
    let result: Result<T, any Error>
    do {
      result = .success(try await call())
    } catch let error as RegistryStoreError {
      result = .failure(GoogleAPIError.from(storeError: error))
    } catch {
      result = .failure(error)
    }
    await refreshSnapshot(ofModel: name)
    return try result.get()
  }

  /// Replaces the snapshot's entry for `name` with the store's (removing it when the store has
  /// none). When the store cannot be read, drops the snapshot so that the next read loads it
  /// afresh. Runs inside `changes`, after the change.
  private func refreshSnapshot(ofModel name: String) async {
    if readsFromStore { return }
    do {
      let model = try await store.model(named: name)
      snapshot.withLock { snapshot in
        snapshot.generation &+= 1
        snapshot.models?[name] = model
      }
    } catch {
      logger.error("could not re-read a model after changing it; reloading all models on the next request", metadata: [
        "model": "\(name)", "error": "\(error)",
      ])
      snapshot.withLock { snapshot in
        snapshot.generation &+= 1
        snapshot.models = nil
      }
    }
  }

  /// Every model by name: the snapshot, or (before the first load, or after a failed refresh) the
  /// store's, which then become the snapshot unless a change was made while they were read.
  private func currentModels() async throws -> [String: ModelRecord] {
    if readsFromStore {
      return Dictionary(try await readingStore { try await self.store.models() }.map { ($0.name, $0) },
                        uniquingKeysWith: { first, _ in first })
    }
    let (cached, generation) = snapshot.withLock { ($0.models, $0.generation) }
    if let cached { return cached }
    let loaded = Dictionary(try await readingStore { try await self.store.models() }.map { ($0.name, $0) },
                            uniquingKeysWith: { first, _ in first })
    snapshot.withLock { snapshot in
      if snapshot.models == nil, snapshot.generation == generation { snapshot.models = loaded }
    }
    return loaded
  }

  /// Runs a store read, turning its refusals (``RegistryStoreError/unavailable(_:)``) into API errors.
  private func readingStore<T>(_ read: () async throws -> T) async throws -> T {
    do {
      return try await read()
    } catch let error as RegistryStoreError {
      throw GoogleAPIError.from(storeError: error)
    }
  }

  /// Deletes the blobs that no version refers to and that were last adopted more than `age` ago —
  /// an upload whose version could not be recorded because the store went away, say. A younger
  /// blob may belong to an upload another instance is recording; it waits for a later sweep.
  /// `hybrid serve` sweeps when it starts and every hour. Returns how many were removed.
  @discardableResult
  public func removeStrayBlobs(olderThan age: Duration = .seconds(3600)) async throws -> Int {
    let files = blobs.blobs
    let removed = try await changes.run {
      var removed = 0
      for digest in files.allDigests() {
        guard let adopted = files.lastAdoption(of: digest),
              Date().timeIntervalSince(adopted) > Double(age.components.seconds) else { continue }
        removed += try await self.removeUnreferencedBlobs([digest.hex])
      }
      return removed
    }
    if removed > 0 { logger.info("stray blobs removed", metadata: ["count": "\(removed)"]) }
    return removed
  }

  /// Deletes those of `candidates` that no version refers to; returns how many. Runs inside
  /// `changes`.
  private func removeUnreferencedBlobs(_ candidates: Set<String>) async throws -> Int {
    var removed = 0
    for sha256 in candidates.sorted() where try await !readingStore({ try await store.isBlobReferenced(sha256: sha256) }) {
      try blobs.removeBlob(sha256)
      removed += 1
    }
    return removed
  }
}

/// The registry's in-memory copy of the store's models (see ``ModelRegistry``).
struct ModelSnapshot: Sendable {
  /// Every model by name; `nil` until loaded, and after a change could not be read back.
  var models: [String: ModelRecord]?
  /// Counts the changes applied, so that a load that raced a change is not installed over it.
  var generation: UInt64 = 0
}
