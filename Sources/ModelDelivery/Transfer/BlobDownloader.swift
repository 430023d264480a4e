import AsyncHTTPClient
import Foundation
import HybridAIWire
import Logging
import NIOCore
import NIOHTTP1

/// Streams a blob into a ``PartialDownload``, resuming after every interruption.
///
/// Each attempt asks for the bytes from the part's end: `Range: bytes=<offset>-` with
/// `If-Range: "<sha256>"` (nothing when the part is empty). A `206` must start at that offset and
/// name the expected total; a `200` (the server ignored the range, or the blob changed) or a `416`
/// starts the part over. Cut connections, read errors, short bodies, `429` and `5xx` are
/// interruptions: the next attempt resumes after a backoff. Attempts that add no byte are limited
/// (``ModelDownloadRetryPolicy/maxAttemptsWithoutProgress`` in a row); any progress resets the count.
///
/// `403`, `404` and `410` throw ``ModelDownloadError/downloadURLRejected(status:message:)`` (the
/// caller fetches a fresh URL); cancellation throws `CancellationError` and leaves the part for a
/// later resume. Verifying the hash is the caller's job.
struct BlobDownloader {
  let httpClient: HTTPClient
  let retryPolicy: ModelDownloadRetryPolicy
  let logger: Logger
  /// Headers sent with every request (a token for the Hub).
  var headers: [(String, String)] = []
  /// Whether a resumed request carries `If-Range` with the blob's SHA-256 (the registry's ETag);
  /// off for a URL that names an immutable file whose server has other ETags.
  var resumesIfUnchanged = true

  /// Received bytes are handed to the part's writer in batches of this size.
  static let writeBatchBytes = 1 << 20

  /// How one attempt ended, when it did not throw.
  private enum Outcome {
    case complete
    case interrupted(ModelDownloadError)
  }

  /// Downloads the rest of `part`'s blob from `url`.
  ///
  /// - Parameters:
  ///   - beforeRetry: runs before every attempt after the first (the network-conditions check).
  ///   - onProgress: called with the bytes received so far (written, queued for the writer or
  ///     gathered for the next batch) as they arrive, from the connection's event loop.
  ///   - mapFileFailure: turns a failed write into the error to throw (`ENOSPC` → not enough space).
  func download(from url: URL, into part: PartialDownload, name: String,
                beforeRetry: () async throws -> Void,
                onProgress: @escaping @Sendable (Int64) -> Void,
                mapFileFailure: (POSIXFile.Failure) -> ModelDownloadError) async throws {
    let size = part.info.sizeBytes
    var logger = self.logger
    logger[metadataKey: "model"] = "\(name)"
    logger[metadataKey: "version"] = "\(part.info.version)"
    var failuresWithoutProgress = 0
    var attempts = 0
    while part.offset < size {
      try Task.checkCancellation()
      if attempts > 0 { try await beforeRetry() }
      attempts += 1
      let start = part.offset
      let outcome: Outcome
      do {
        outcome = try await attempt(url: url, part: part, logger: logger, onProgress: onProgress)
      } catch let failure as POSIXFile.Failure {
        throw mapFileFailure(failure)
      }
      guard case .interrupted(let interruption) = outcome, part.offset < size else { break }

      failuresWithoutProgress = part.offset > start ? 0 : failuresWithoutProgress + 1
      if failuresWithoutProgress >= retryPolicy.maxAttemptsWithoutProgress {
        logger.error("giving up the download", metadata: [
          "attempts": "\(attempts)", "withoutProgress": "\(failuresWithoutProgress)", "bytes": "\(part.offset)",
          "sizeBytes": "\(size)", "error": "\(interruption)",
        ])
        if interruption.offlineReason != nil, attempts == failuresWithoutProgress { throw interruption }
        throw ModelDownloadError.tooManyInterruptions(attempts: failuresWithoutProgress,
                                                      lastError: interruption.description)
      }
      let delay = retryPolicy.delay(afterFailuresWithoutProgress: max(failuresWithoutProgress, 1))
      logger.info("download interrupted; resuming", metadata: [
        "bytes": "\(part.offset)", "sizeBytes": "\(size)", "receivedThisAttempt": "\(part.offset - start)",
        "failuresWithoutProgress": "\(failuresWithoutProgress)", "delay": "\(delay)", "reason": "\(interruption)",
      ])
      try await Task.sleep(for: delay)
    }
  }

  private func attempt(url: URL, part: PartialDownload, logger: Logger,
                       onProgress: @escaping @Sendable (Int64) -> Void) async throws -> Outcome {
    let offset = part.offset
    var headers = HTTPHeaders()
    headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
    // Ranges count bytes of the file itself, never of a compressed encoding of it.
    headers.add(name: "Accept-Encoding", value: "identity")
    for (name, value) in self.headers { headers.add(name: name, value: value) }
    if offset > 0 {
      headers.add(name: "Range", value: "bytes=\(offset)-")
      if resumesIfUnchanged { headers.add(name: "If-Range", value: "\"\(part.info.sha256)\"") }
    }
    let request: HTTPClient.Request
    do {
      request = try HTTPClient.Request(url: url, method: .GET, headers: headers)
    } catch {
      throw ModelDownloadError.invalidServerResponse(reason: "unusable download URL \(Self.redacted(url)): \(error)")
    }

    // The receiver and the connection share one event loop: no thread hop per network read.
    let eventLoop = httpClient.eventLoopGroup.next()
    let receiver = BlobResponseReceiver(writer: part.writer, offset: offset, size: part.info.sizeBytes,
                                        batchBytes: Self.writeBatchBytes, logger: logger, onProgress: onProgress)
    logger.debug("requesting the model file", metadata: ["url": "\(Self.redacted(url))", "fromByte": "\(offset)"])
    let task = httpClient.execute(request: request, delegate: receiver, eventLoop: .delegateAndChannel(on: eventLoop),
                                  deadline: nil, logger: logger)
    let ending: (any Error)?
    do {
      try await withTaskCancellationHandler {
        try await task.futureResult.get()
      } onCancel: {
        task.cancel()
      }
      ending = nil
    } catch {
      ending = error
    }
    // Whatever arrived is on disk before the next attempt asks for the rest.
    try await part.finishWrites()
    return try outcome(of: receiver, ending: ending, url: url, part: part, from: offset, logger: logger,
                       onProgress: onProgress)
  }

  /// How an attempt ended, from the answer's head and the error that ended the request, if any.
  private func outcome(of receiver: BlobResponseReceiver, ending: (any Error)?, url: URL, part: PartialDownload,
                       from offset: Int64, logger: Logger, onProgress: @Sendable (Int64) -> Void) throws -> Outcome {
    if let error = ending as? ModelDownloadError { throw error }
    if let error = ending as? POSIXFile.Failure { throw error }
    if let ending, Task.isCancelled || TransportErrors.isCancellation(ending) { throw CancellationError() }
    guard let head = receiver.head else {
      // AsyncHTTPClient delivers a head before it reports success, so an error ended this one.
      guard let ending else { throw ModelDownloadError.invalidServerResponse(reason: "the request ended without an answer") }
      return .interrupted(TransportErrors.beforeResponse(ending, host: url.host ?? ""))
    }

    let status = Int(head.status.code)
    if !BlobResponseReceiver.appendedStatuses.contains(head.status.code) {
      let message = GoogleErrorEnvelope.message(from: Data(receiver.errorBody.readableBytesView))
      switch status {
      case 416:
        logger.notice("the server refused the range; starting over", metadata: [
          "fromByte": "\(offset)", "contentRange": "\(head.headers.first(name: "Content-Range") ?? "none")",
          "message": "\(message)",
        ])
        try part.restart()
        onProgress(0)
        return .interrupted(.serverError(status: 416, message: "range not satisfiable from byte \(offset)"))
      case 403, 404, 410:
        throw ModelDownloadError.downloadURLRejected(status: status, message: message)
      case 429, 500...599:
        return .interrupted(.serverError(status: status, message: message))
      default:
        throw ModelDownloadError.serverError(status: status, message: message)
      }
    }
    if let ending {
      let why = (ending as? HTTPClientError) == .readTimeout ? "nothing arrived within the read timeout" : "\(ending)"
      return .interrupted(.transportFailure("the connection failed after \(part.offset - offset) bytes: \(why)"))
    }
    guard part.offset == part.info.sizeBytes else {
      return .interrupted(.transportFailure("the answer ended at byte \(part.offset) of \(part.info.sizeBytes)"))
    }
    return .complete
  }

  /// The URL without its query (the signature is a credential of sorts; keep it out of logs).
  static func redacted(_ url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
    if components.query != nil { components.query = "…" }
    return components.string ?? "(invalid URL)"
  }
}
