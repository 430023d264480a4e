import Foundation
import HybridAIWire
import Logging

extension ModelDownloader {
  // MARK: - Flights

  /// Asks the registry for the current version of `name` and installs it, joining a fetch under
  /// way when there is one (after checking this caller's own network conditions).
  func fetchLatest(name: String, conditions: ModelDownloadConditions) async throws -> CustomModel {
    let (flight, isNew) = flight(for: name, conditions: conditions, background: false)
    if !isNew {
      logger.debug("joining the download under way", metadata: ["model": "\(name)"])
      try await waitForAllowedNetwork(conditions, host: server.host ?? "", name: name)
    }
    return try await flight.wait { [weak self] in self?.forget(flight) }
  }

  /// Starts a fetch of `name` that runs on without waiters, unless one is under way (which is then
  /// kept running).
  func startBackgroundFetch(name: String, conditions: ModelDownloadConditions) {
    let (flight, isNew) = flight(for: name, conditions: conditions, background: true)
    if !isNew { flight.runInBackground() }
  }

  /// The flight under way for `name`, or a new one (started).
  private func flight(for name: String, conditions: ModelDownloadConditions,
                      background: Bool) -> (DownloadFlight, isNew: Bool) {
    let (flight, isNew) = state.withLock { state -> (DownloadFlight, Bool) in
      if let flight = state.flights[name], !flight.isAbandoned { return (flight, false) }
      let flight = DownloadFlight(name: name, id: state.nextFlightID, isBackground: background)
      state.nextFlightID += 1
      state.flights[name] = flight
      state.failures[name] = nil
      state.progress[name] = nil
      state.lastReportedBytes[name] = nil
      return (flight, true)
    }
    guard isNew else { return (flight, false) }
    logger.debug("starting a model fetch", metadata: ["model": "\(name)", "background": "\(background)"])
    flight.start({ [self] in
      try await self.fetchAndInstall(name: name, conditions: conditions, flightID: flight.id)
    }, onFinish: { [self] result in
      self.finished(flight, result: result)
    })
    return (flight, true)
  }

  /// Forgets an abandoned (cancelled or deleted) flight, so that the next request starts a fresh
  /// one, and ends its progress streams.
  func forget(_ flight: DownloadFlight) {
    let subscribers = state.withLock { state -> [AsyncStream<ModelDownloadProgress>.Continuation] in
      guard state.flights[flight.name] === flight else { return [] }
      state.flights[flight.name] = nil
      state.progress[flight.name] = nil
      state.lastReportedBytes[flight.name] = nil
      return Array((state.subscribers.removeValue(forKey: flight.name) ?? [:]).values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }

  private func finished(_ flight: DownloadFlight, result: Result<CustomModel, any Error>) {
    let name = flight.name
    let subscribers = state.withLock { state -> [AsyncStream<ModelDownloadProgress>.Continuation] in
      guard state.flights[name] === flight else { return [] }
      state.flights[name] = nil
      state.progress[name] = nil
      state.lastReportedBytes[name] = nil
      switch result {
      case .success(let model):
        state.installed[name] = model
        state.failures[name] = nil
      case .failure(let error) where !(error is CancellationError):
        state.failures[name] = String(describing: error)
      case .failure:
        break
      }
      return Array((state.subscribers.removeValue(forKey: name) ?? [:]).values)
    }
    for subscriber in subscribers { subscriber.finish() }
    switch result {
    case .success(let model):
      logger.debug("model fetch finished", metadata: ["model": "\(name)", "version": "\(model.version)"])
    case .failure(let error as CancellationError):
      logger.info("model fetch cancelled", metadata: ["model": "\(name)", "error": "\(error)"])
    case .failure(let error):
      logger.warning("model fetch failed", metadata: ["model": "\(name)", "error": "\(error)"])
    }
  }

  // MARK: - Fetching

  /// Checks the registry for `name` and, when it serves another version, downloads and installs it.
  private func fetchAndInstall(name: String, conditions: ModelDownloadConditions,
                               flightID: UInt64) async throws -> CustomModel {
    try await waitForAllowedNetwork(conditions, host: server.host ?? "", name: name)
    let installationID = try installationID()
    var refetched = false
    while true {
      let local = store.installed(name)
      let answer = try await infoClient.fetch(name: name, installationID: installationID, ifNoneMatch: local?.sha256)
      switch answer {
      case .notModified:
        guard let local else {
          throw ModelDownloadError.invalidServerResponse(reason: "304 Not Modified, but no version is installed")
        }
        logger.debug("the local model is current", metadata: ["model": "\(name)", "version": "\(local.version)"])
        return store.customModel(local)
      case .download(let info, let url):
        if let local, local.sha256 == info.sha256 { return try relabel(local, as: info) }
        do {
          return try await download(info, from: url, conditions: conditions, flightID: flightID,
                                    firstAttemptChecked: url.host == server.host)
        } catch ModelDownloadError.downloadURLRejected(let status, let message) where !refetched {
          logger.notice("the download URL was refused; fetching the model information again", metadata: [
            "model": "\(name)", "status": "\(status)", "message": "\(message)",
          ])
          refetched = true
        }
      }
    }
  }

  /// The installed file is the served blob under another version number: record that version.
  private func relabel(_ local: InstalledModelRecord, as info: ModelDownloadInfo) throws -> CustomModel {
    guard local.version != info.version else {
      logger.debug("the local model is current", metadata: ["model": "\(info.name)", "version": "\(local.version)"])
      return store.customModel(local)
    }
    var record = local
    record.version = info.version
    do { try store.commit(record) } catch { throw fileError(error, required: 0) }
    logger.info("the served version has the installed file", metadata: [
      "model": "\(info.name)", "version": "\(info.version)", "previousVersion": "\(local.version)",
    ])
    return store.customModel(record)
  }

  /// Downloads the blob `info` names into the model's part file (resuming one left by an earlier
  /// attempt), verifies it and installs it.
  private func download(_ info: ModelDownloadInfo, from url: URL, conditions: ModelDownloadConditions, flightID: UInt64,
                        firstAttemptChecked: Bool) async throws -> CustomModel {
    let name = info.name
    do { try store.prepareDirectory(for: name) } catch { throw fileError(error, required: info.sizeBytes) }
    let lock: ModelLock
    do {
      lock = try await ModelLock.acquire(at: store.lockPath(for: name))
    } catch let error as POSIXFile.Failure {
      throw fileError(error, required: info.sizeBytes)
    }
    defer { lock.release() }
    // Another downloader may have installed it while this one waited for the lock.
    if let current = store.installed(name), current.sha256 == info.sha256 { return try relabel(current, as: info) }
    var record = InstalledModelRecord(name: name, version: info.version, sha256: info.sha256, sizeBytes: info.sizeBytes,
                                      fileName: InstalledModelRecord.fileName(sha256: info.sha256, format: info.format),
                                      format: info.format, installTime: Date())
    // Another model (or an earlier, interrupted install) may hold these bytes already.
    do {
      if try await store.installFromBlob(record) { return installed(record) }
    } catch {
      throw fileError(error, required: 0)
    }

    let part: PartialDownload
    do {
      part = try PartialDownload.open(in: store, name: name, for: PartInfo(sha256: info.sha256, sizeBytes: info.sizeBytes,
                                                                          version: info.version), logger: logger)
    } catch {
      throw fileError(error, required: info.sizeBytes)
    }
    defer { part.close() }

    let required = info.sizeBytes - part.offset
    if let available = diskSpaceProbe.availableBytes(at: URL(fileURLWithPath: store.directory(for: name))),
       available < required {
      logger.error("not enough disk space for the model", metadata: [
        "model": "\(name)", "version": "\(info.version)", "required": "\(required)", "available": "\(available)",
      ])
      throw ModelDownloadError.notEnoughSpace(required: required, available: available)
    }

    logger.info("downloading the model", metadata: [
      "model": "\(name)", "version": "\(info.version)", "sizeBytes": "\(info.sizeBytes)", "fromByte": "\(part.offset)",
      "sha256": "\(info.sha256)",
    ])
    let clock = ContinuousClock()
    let started = clock.now
    let startOffset = part.offset
    reportProgress(name: name, version: info.version, bytes: part.offset, total: info.sizeBytes, flightID: flightID)
    do {
      if !firstAttemptChecked { try await waitForAllowedNetwork(conditions, host: url.host ?? "", name: name) }
      try await blobDownloader.download(
        from: url, into: part, name: name,
        beforeRetry: { try await waitForAllowedNetwork(conditions, host: url.host ?? "", name: name) },
        onProgress: { [self] bytes in
          reportProgress(name: name, version: info.version, bytes: bytes, total: info.sizeBytes, flightID: flightID)
        },
        mapFileFailure: { spaceError($0, required: info.sizeBytes - part.offset) })
    } catch ModelDownloadError.sizeMismatch(let expected, let actual) {
      part.discard()
      throw ModelDownloadError.sizeMismatch(expected: expected, actual: actual)
    }

    let digest = part.digest()
    guard digest == info.sha256 else {
      logger.error("the downloaded file is corrupt; discarding it", metadata: [
        "model": "\(name)", "version": "\(info.version)", "expectedSHA256": "\(info.sha256)", "actualSHA256": "\(digest)",
      ])
      part.discard()
      throw ModelDownloadError.hashMismatch(expected: info.sha256, actual: digest)
    }
    record.installTime = Date()
    do {
      try part.syncAndClose()
      try await store.install(partAt: part.path, as: record)
    } catch {
      throw fileError(error, required: 0)
    }
    let model = installed(record)
    let seconds = (clock.now - started) / .seconds(1)
    logger.info("installed the model", metadata: [
      "model": "\(name)", "version": "\(info.version)", "path": "\(model.path)", "sizeBytes": "\(info.sizeBytes)",
      "downloadedBytes": "\(info.sizeBytes - startOffset)", "seconds": "\(String(format: "%.3f", seconds))",
    ])
    return model
  }

  /// Remembers and returns the model `record` describes, now installed.
  private func installed(_ record: InstalledModelRecord) -> CustomModel {
    let model = store.customModel(record)
    state.withLock { $0.installed[record.name] = model }
    return model
  }

  // MARK: - Conditions

  /// Returns when the network to `host` is allowed by `conditions`; throws
  /// ``ModelDownloadError/cellularNotAllowed(interface:)`` or waits (polling the probe) when not.
  func waitForAllowedNetwork(_ conditions: ModelDownloadConditions, host: String, name: String) async throws {
    guard !conditions.allowsCellularAccess else { return }
    var waited = false
    while true {
      try Task.checkCancellation()
      let path = await networkProbe.path(to: host)
      if !path.isExpensive {
        if waited {
          logger.info("an allowed network is in use; continuing", metadata: ["model": "\(name)", "path": "\(path)"])
        }
        return
      }
      guard conditions.waitsForAllowedNetwork else {
        logger.notice("the download conditions do not allow this network", metadata: [
          "model": "\(name)", "host": "\(host)", "path": "\(path)",
        ])
        throw ModelDownloadError.cellularNotAllowed(interface: path.interface ?? "unknown")
      }
      if !waited {
        logger.notice("waiting for a network the download conditions allow", metadata: [
          "model": "\(name)", "host": "\(host)", "path": "\(path)", "pollInterval": "\(retryPolicy.networkPollInterval)",
        ])
      }
      waited = true
      try await Task.sleep(for: retryPolicy.networkPollInterval)
    }
  }

  // MARK: - Progress and errors

  /// Records the progress of flight `flightID` and passes it to subscribers: every change of
  /// direction, the end, and otherwise steps of at least 64 KiB or 0.5 %.
  private func reportProgress(name: String, version: String, bytes: Int64, total: Int64, flightID: UInt64) {
    let progress = ModelDownloadProgress(name: name, version: version, bytesReceived: bytes, totalBytes: total)
    let subscribers = state.withLock { state -> [AsyncStream<ModelDownloadProgress>.Continuation] in
      guard state.flights[name]?.id == flightID else { return [] }
      state.progress[name] = progress
      let step = max(64 << 10, total / 200)
      if let last = state.lastReportedBytes[name], bytes > last, bytes - last < step, bytes < total { return [] }
      state.lastReportedBytes[name] = bytes
      return Array((state.subscribers[name] ?? [:]).values)
    }
    for subscriber in subscribers { subscriber.yield(progress) }
  }

  /// The ``ModelDownloadError`` for a file-system failure: out of space (`ENOSPC`, `EFBIG`,
  /// `EDQUOT`) becomes ``ModelDownloadError/notEnoughSpace(required:available:)``.
  func fileError(_ error: any Error, required: Int64) -> any Error {
    guard let failure = error as? POSIXFile.Failure else { return error }
    return spaceError(failure, required: required)
  }

  /// The ``ModelDownloadError`` for a file-system failure (see ``fileError(_:required:)``).
  func spaceError(_ failure: POSIXFile.Failure, required: Int64) -> ModelDownloadError {
    ModelDownloadError(failure, required: required, in: directory, probe: diskSpaceProbe, logger: logger)
  }
}

extension ModelDownloadError {
  /// The error for a file-system failure while `required` more bytes were to be written below
  /// `directory`: out of space (`ENOSPC`, `EFBIG`, `EDQUOT`) is ``notEnoughSpace(required:available:)``,
  /// a failed read ``readFailed(path:errno:)``, anything else ``writeFailed(path:errno:)``.
  init(_ failure: POSIXFile.Failure, required: Int64, in directory: URL, probe: any DiskSpaceProbe, logger: Logger) {
    if failure.isOutOfSpace {
      let available = probe.availableBytes(at: directory) ?? 0
      logger.error("the disk is full", metadata: [
        "path": "\(failure.path)", "error": "\(failure)", "required": "\(required)", "available": "\(available)",
      ])
      self = .notEnoughSpace(required: max(required, 0), available: available)
      return
    }
    logger.error("a file operation failed", metadata: ["error": "\(failure)"])
    if failure.operation == "read" || failure.operation == "stat" {
      self = .readFailed(path: failure.path, errno: failure.code)
    } else {
      self = .writeFailed(path: failure.path, errno: failure.code)
    }
  }
}
