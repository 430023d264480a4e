import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIWire
import Logging
import Synchronization

/// Downloads custom models from a HybridAI model registry (`hybrid serve`) onto this device and
/// keeps them up to date — Firebase ML's `ModelDownloader`, self-hosted.
///
/// ```swift
/// let downloader = ModelDownloader(server: URL(string: "http://127.0.0.1:8080")!)
/// let model = try await downloader.getModel(
///   name: "selfie_segmentation",
///   downloadType: .localModelUpdateInBackground,
///   conditions: ModelDownloadConditions(allowsCellularAccess: false))
/// let interpreter = try Interpreter(modelPath: model.path)
/// ```
///
/// Downloads stream to a partial file (never into memory) and resume with a `Range` request after
/// any interruption, even in a later process. A file is installed only once its size and SHA-256
/// match what the registry announced: it is renamed into place and the metadata replaced
/// atomically, and only then is the previous version's file deleted, so a failed, corrupt or
/// cancelled download never disturbs the version in use. Concurrent requests for one model share
/// one download.
///
/// Files live in ``directory``, one subdirectory per model. The installation id sent to the
/// registry (it picks the A/B roll-out bucket) is created once and kept there.
///
/// Errors are ``ModelDownloadError``s, or `CancellationError` when the calling task is cancelled.
public final class ModelDownloader: Sendable {
  /// The registry's base URL.
  public let server: URL
  /// Where models are kept.
  public let directory: URL

  /// The header carrying the installation id.
  public static let installationIDHeader = "X-HybridAI-Installation-Id"
  static let userAgent = "HybridAI-ModelDelivery/1"

  let store: ModelStore
  let infoClient: ModelInfoClient
  let blobDownloader: BlobDownloader
  let networkProbe: any NetworkProbe
  let diskSpaceProbe: any DiskSpaceProbe
  let retryPolicy: ModelDownloadRetryPolicy
  let logger: Logger
  let state: Mutex<State>

  struct State {
    var installationID: String?
    /// The fetch under way for each model.
    var flights: [String: DownloadFlight] = [:]
    var nextFlightID: UInt64 = 0
    /// Installed versions seen, for ``RegistryModelFile/fileState``.
    var installed: [String: CustomModel] = [:]
    /// Why the last background fetch of a model failed.
    var failures: [String: String] = [:]
    /// Progress of the flight under way, by model.
    var progress: [String: ModelDownloadProgress] = [:]
    var lastReportedBytes: [String: Int64] = [:]
    var subscribers: [String: [UInt64: AsyncStream<ModelDownloadProgress>.Continuation]] = [:]
    var nextSubscriberID: UInt64 = 0
  }

  /// A downloader for the registry at `server`.
  ///
  /// - Parameters:
  ///   - server: the registry's base URL (`hybrid serve`), e.g. `http://127.0.0.1:8080`.
  ///   - directory: where models are kept; by default `$XDG_CACHE_HOME/hybridai/models`, else
  ///     `~/.cache/hybridai/models`.
  ///   - installationID: the id that picks this device's A/B bucket (1–128 visible ASCII
  ///     characters); by default a random UUID created once and kept in `directory`.
  ///   - apiKey: the server's API key, when it requires one (`hybrid serve --api-key`), sent as
  ///     `x-goog-api-key` with each model-information request.
  ///   - httpClient: the client for all requests; by default a process-wide one that fails a
  ///     refused connection at once (`HTTPClient.shared` would retry it until its connect timeout).
  ///   - networkProbe: tells which interface reaches the server (for ``ModelDownloadConditions``).
  ///   - diskSpaceProbe: tells the free space, checked before a download starts.
  ///   - retryPolicy: how interruptions are retried.
  ///   - logger: where the downloader logs (label `HybridAI.modelDelivery` by default).
  public init(server: URL, directory: URL? = nil, installationID: String? = nil, apiKey: String? = nil,
              httpClient: HTTPClient = DeliveryHTTPClient.shared,
              networkProbe: any NetworkProbe = LinuxNetworkProbe(),
              diskSpaceProbe: any DiskSpaceProbe = StatvfsDiskSpaceProbe(),
              retryPolicy: ModelDownloadRetryPolicy = .default,
              logger: Logger = Logger(label: "HybridAI.modelDelivery")) {
    if let installationID {
      precondition(RegistryIdentifiers.isValidInstallationId(installationID),
                   "an installation id is 1–128 visible ASCII characters")
    }
    var logger = logger
    logger[metadataKey: "server"] = "\(server.absoluteString)"
    self.server = server
    self.directory = directory ?? Self.defaultDirectory()
    self.networkProbe = networkProbe
    self.diskSpaceProbe = diskSpaceProbe
    self.retryPolicy = retryPolicy
    self.logger = logger
    self.store = ModelStore(root: self.directory, logger: logger)
    self.infoClient = ModelInfoClient(server: server, apiKey: apiKey, httpClient: httpClient, retryPolicy: retryPolicy,
                                      logger: logger)
    self.blobDownloader = BlobDownloader(httpClient: httpClient, retryPolicy: retryPolicy, logger: logger)
    self.state = Mutex(State(installationID: installationID))
  }

  /// `$XDG_CACHE_HOME/hybridai/models` when `XDG_CACHE_HOME` is an absolute path, else
  /// `~/.cache/hybridai/models` (``HybridAI/UserModelFolders/downloaded(environment:)``).
  public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    UserModelFolders.downloaded(environment: environment)
  }

  // MARK: - Getting models

  /// The model `name`, as `downloadType` says:
  ///
  /// - ``ModelDownloadType/localModel``: the copy on this device, without using the network;
  ///   with none, as `.latestModel`.
  /// - ``ModelDownloadType/localModelUpdateInBackground``: the copy on this device at once, while
  ///   a background task checks the registry and installs a newer version for the next call;
  ///   with none, as `.latestModel`.
  /// - ``ModelDownloadType/latestModel``: asks the registry (`If-None-Match` with the installed
  ///   version's hash) and returns the local copy when it is current, else downloads, verifies and
  ///   installs the new version and returns it. Fails when the registry cannot be reached.
  ///
  /// `conditions` apply before any network use. A call that finds a download of the model under
  /// way waits for it instead of starting another.
  public func getModel(name: String, downloadType: ModelDownloadType,
                       conditions: ModelDownloadConditions = ModelDownloadConditions()) async throws -> CustomModel {
    try ModelName.validate(name)
    switch downloadType {
    case .localModel:
      if let local = localModel(name) {
        logger.debug("using the local model", metadata: ["model": "\(name)", "version": "\(local.version)"])
        return local
      }
    case .localModelUpdateInBackground:
      if let local = localModel(name) {
        logger.debug("using the local model; checking for updates in the background", metadata: [
          "model": "\(name)", "version": "\(local.version)",
        ])
        startBackgroundFetch(name: name, conditions: conditions)
        return local
      }
    case .latestModel:
      break
    }
    return try await fetchLatest(name: name, conditions: conditions)
  }

  /// Waits until every fetch under way, background ones included, has ended (successfully or
  /// not). A command-line tool calls this before exiting after
  /// ``ModelDownloadType/localModelUpdateInBackground``, so the update is not cut short.
  public func waitForBackgroundUpdates() async {
    while true {
      let flights = state.withLock { Array($0.flights.values) }
      if flights.isEmpty { return }
      // A flight leaves `flights` before its task ends, so this loop ends.
      for flight in flights { await flight.waitUntilFinished() }
    }
  }

  /// The models on this device (verified when installed; present with the recorded size now).
  public func listDownloadedModels() async throws -> [CustomModel] {
    store.modelNames().compactMap { name in store.installed(name).map(store.customModel) }
  }

  /// Deletes the model `name` from this device (its file, metadata and any partial download),
  /// cancelling a download of it under way, whose callers get
  /// ``ModelDownloadError/deletedDuringDownload(name:)``.
  ///
  /// Throws ``ModelDownloadError/modelNotFound(name:)`` when nothing of it was on this device.
  public func deleteDownloadedModel(name: String) async throws {
    try ModelName.validate(name)
    let flight = state.withLock { state -> DownloadFlight? in
      state.installed[name] = nil
      state.failures[name] = nil
      return state.flights[name]
    }
    if let flight {
      let task = flight.abandon(with: .deletedDuringDownload(name: name))
      forget(flight)
      await task?.value
    }
    var removed = false
    if FileManager.default.fileExists(atPath: store.directory(for: name)) {
      let lock = try await ModelLock.acquire(at: store.lockPath(for: name))
      removed = await store.remove(name)
      lock.release()
      state.withLock { $0.installed[name] = nil }
    }
    guard removed || flight != nil else { throw ModelDownloadError.modelNotFound(name: name) }
    logger.info("deleted the downloaded model", metadata: ["model": "\(name)"])
  }

  // MARK: - Progress

  /// Progress reports for the next (or current) download of `name`; the stream ends when that
  /// download ends, whether it succeeded or failed. When no download is under way it waits for the
  /// next one. A download may begin above zero bytes (a resumed partial file), and may go back to
  /// zero if the server makes it start over.
  ///
  /// ```swift
  /// let progress = downloader.progress(for: "selfie")
  /// Task { for await step in progress { print(step.fractionCompleted) } }
  /// let model = try await downloader.getModel(name: "selfie", downloadType: .latestModel)
  /// ```
  public func progress(for name: String) -> AsyncStream<ModelDownloadProgress> {
    let (stream, continuation) = AsyncStream.makeStream(of: ModelDownloadProgress.self,
                                                        bufferingPolicy: .bufferingNewest(256))
    guard ModelName.isValid(name) else {
      continuation.finish()
      return stream
    }
    let id = state.withLock { state in
      defer { state.nextSubscriberID += 1 }
      state.subscribers[name, default: [:]][state.nextSubscriberID] = continuation
      if let current = state.progress[name] { continuation.yield(current) }
      return state.nextSubscriberID
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { state in _ = state.subscribers[name]?.removeValue(forKey: id) }
    }
    return stream
  }

  // MARK: - Model files

  /// A ``ModelFileSource`` for the registry model `name`, whose file is fetched (as
  /// ``ModelDownloadType/latestModel`` does, in the background) when ``RegistryModelFile/prepareFile()``
  /// is called and it is not on this device yet.
  ///
  /// ```swift
  /// let system = SystemLanguageModel(modelFile: downloader.modelFile(named: "smollm2"))
  /// ```
  public func modelFile(named name: String, conditions: ModelDownloadConditions = ModelDownloadConditions())
    -> RegistryModelFile {
    RegistryModelFile(name: name, conditions: conditions, downloader: self)
  }

  /// Where the file of `name` stands (see ``RegistryModelFile/fileState``).
  func fileState(of name: String) -> ModelFileState {
    guard ModelName.isValid(name) else { return .failed(reason: ModelDownloadError.invalidModelName(name).description) }
    if let local = localModel(name) { return .ready(path: local.path, version: local.version) }
    return state.withLock { state in
      if state.flights[name] != nil {
        let progress = state.progress[name]
        return .downloading(bytesReceived: progress?.bytesReceived ?? 0, totalBytes: progress?.totalBytes)
      }
      if let reason = state.failures[name] { return .failed(reason: reason) }
      return .notDownloaded
    }
  }

  /// Starts a background fetch of `name` unless it is installed or on its way.
  func prepareFile(name: String, conditions: ModelDownloadConditions) {
    guard ModelName.isValid(name), localModel(name) == nil else { return }
    startBackgroundFetch(name: name, conditions: conditions)
  }

  // MARK: - Local copies

  /// The installed version of `name`, from the cache (when its file is still there) or the disk.
  func localModel(_ name: String) -> CustomModel? {
    if let cached = state.withLock({ $0.installed[name] }) {
      if POSIXFile.regularFileSize(atPath: cached.path) == cached.size { return cached }
      state.withLock { state in if state.installed[name] == cached { state.installed[name] = nil } }
    }
    guard let record = store.installed(name) else { return nil }
    let model = store.customModel(record)
    state.withLock { $0.installed[name] = model }
    return model
  }

  /// The installation id: the one given, else the one kept in the directory (created on first use).
  func installationID() throws -> String {
    if let id = state.withLock({ $0.installationID }) { return id }
    do {
      let id = try InstallationID.loadOrCreate(in: directory)
      state.withLock { $0.installationID = id }
      return id
    } catch {
      throw fileError(error, required: 0)
    }
  }
}
