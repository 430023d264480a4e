import AsyncHTTPClient
import Foundation
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

  /// Received bytes are written (and hashed) in chunks of this size.
  static let writeChunkBytes = 1 << 20

  /// How one attempt ended, when it did not throw.
  private enum Outcome {
    case complete
    case interrupted(ModelDownloadError)
  }

  /// Downloads the rest of `part`'s blob from `url`.
  ///
  /// - Parameters:
  ///   - beforeRetry: runs before every attempt after the first (the network-conditions check).
  ///   - onProgress: called with the bytes received so far (written, or gathered for the next write).
  ///   - mapFileFailure: turns a failed write into the error to throw (`ENOSPC` → not enough space).
  func download(from url: URL, into part: PartialDownload, name: String,
                beforeRetry: () async throws -> Void,
                onProgress: (Int64) -> Void,
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
                       onProgress: (Int64) -> Void) async throws -> Outcome {
    let size = part.info.sizeBytes
    let offset = part.offset
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = .GET
    request.headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
    // Ranges count bytes of the file itself, never of a compressed encoding of it.
    request.headers.add(name: "Accept-Encoding", value: "identity")
    if offset > 0 {
      request.headers.add(name: "Range", value: "bytes=\(offset)-")
      request.headers.add(name: "If-Range", value: "\"\(part.info.sha256)\"")
    }

    let response: HTTPClientResponse
    do {
      logger.debug("requesting the model file", metadata: ["url": "\(Self.redacted(url))", "fromByte": "\(offset)"])
      response = try await httpClient.execute(request, deadline: .distantFuture, logger: logger)
    } catch {
      if Task.isCancelled || TransportErrors.isCancellation(error) { throw CancellationError() }
      return .interrupted(TransportErrors.beforeResponse(error, host: url.host ?? ""))
    }

    let status = Int(response.status.code)
    switch status {
    case 206:
      guard let header = response.headers.first(name: "Content-Range"), let range = ContentRange(header) else {
        throw ModelDownloadError.invalidServerResponse(
          reason: "206 without a valid Content-Range (\(response.headers.first(name: "Content-Range") ?? "none"))")
      }
      if let total = range.completeLength, total != size {
        throw ModelDownloadError.sizeMismatch(expected: size, actual: total)
      }
      guard range.first == offset else {
        throw ModelDownloadError.invalidServerResponse(
          reason: "asked for the bytes from \(offset), got Content-Range \(header)")
      }
    case 200:
      if let length = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }), length != size {
        throw ModelDownloadError.sizeMismatch(expected: size, actual: length)
      }
      if offset > 0 {
        logger.notice("the server sent the whole file instead of the rest; starting over", metadata: [
          "discardedBytes": "\(offset)",
        ])
        try part.restart()
        onProgress(0)
      }
    case 416:
      let body = await Self.collectErrorBody(response)
      logger.notice("the server refused the range; starting over", metadata: [
        "fromByte": "\(offset)", "contentRange": "\(response.headers.first(name: "Content-Range") ?? "none")",
        "message": "\(GoogleErrorBody.message(from: body))",
      ])
      try part.restart()
      onProgress(0)
      return .interrupted(.serverError(status: 416, message: "range not satisfiable from byte \(offset)"))
    case 403, 404, 410:
      let body = await Self.collectErrorBody(response)
      throw ModelDownloadError.downloadURLRejected(status: status, message: GoogleErrorBody.message(from: body))
    case 429, 500...599:
      let body = await Self.collectErrorBody(response)
      return .interrupted(.serverError(status: status, message: GoogleErrorBody.message(from: body)))
    default:
      let body = await Self.collectErrorBody(response)
      throw ModelDownloadError.serverError(status: status, message: GoogleErrorBody.message(from: body))
    }

    // Received bytes are gathered into chunks of `writeChunkBytes` before they are written and
    // hashed (fewer system calls and task hops than one per network read); whatever is gathered
    // when the connection fails is written before the attempt ends, so nothing received is lost.
    var pending = ByteBuffer()
    func flush() async throws(POSIXFile.Failure) {
      guard pending.readableBytes > 0 else { return }
      try await part.append(pending)
      pending.clear()
      onProgress(part.offset)
    }
    do {
      for try await var buffer in response.body {
        let end = part.offset + Int64(pending.readableBytes + buffer.readableBytes)
        guard end <= size else { throw ModelDownloadError.sizeMismatch(expected: size, actual: end) }
        if pending.readableBytes == 0, buffer.readableBytes >= Self.writeChunkBytes {
          try await part.append(buffer)
          onProgress(part.offset)
          continue
        }
        pending.writeBuffer(&buffer)
        if pending.readableBytes >= Self.writeChunkBytes {
          try await flush()
        } else {
          onProgress(part.offset + Int64(pending.readableBytes))
        }
      }
      try await flush()
    } catch let error as ModelDownloadError {
      throw error
    } catch let error as POSIXFile.Failure {
      throw error
    } catch {
      try await flush()
      if Task.isCancelled || TransportErrors.isCancellation(error) { throw CancellationError() }
      return .interrupted(.transportFailure("the connection failed after \(part.offset - offset) bytes: \(error)"))
    }
    guard part.offset == size else {
      return .interrupted(.transportFailure("the answer ended at byte \(part.offset) of \(size)"))
    }
    return .complete
  }

  private static func collectErrorBody(_ response: HTTPClientResponse) async -> Data {
    (try? await response.body.collect(upTo: 64 << 10)).map { Data($0.readableBytesView) } ?? Data()
  }

  /// The URL without its query (the signature is a credential of sorts; keep it out of logs).
  static func redacted(_ url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
    if components.query != nil { components.query = "…" }
    return components.string ?? "(invalid URL)"
  }
}
