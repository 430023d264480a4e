import AsyncHTTPClient
import Foundation
import HybridAIWire
import Logging
import NIOCore
import NIOHTTP1

/// Asks the registry which version of a model this installation gets:
/// `GET /v1/models/{name}:download` with the installation id and, when a version is installed,
/// `If-None-Match: "<sha256>"`.
///
/// `429` and `5xx` answers and connections reset before an answer are retried as the retry policy
/// says; other failures are thrown at once (an unreachable registry fails fast).
struct ModelInfoClient: Sendable {
  /// What the registry said.
  enum Answer: Sendable {
    /// `304`: the installed version (the one named in `If-None-Match`) is current.
    case notModified
    /// `200`: the version to download, with its validated download URL.
    case download(ModelDownloadInfo, URL)
  }

  let server: URL
  /// Sent as `x-goog-api-key` when the server requires a key.
  let apiKey: String?
  let httpClient: HTTPClient
  let retryPolicy: ModelDownloadRetryPolicy
  let logger: Logger

  /// The longest an information request may take.
  static let requestTimeout: TimeAmount = .seconds(60)
  /// The most bytes read from an information answer.
  static let maxBodyBytes = 1 << 20
  static let retryableStatuses: Set<Int> = [429, 500, 502, 503, 504]

  /// `<server>/v1/models/<name>:download` (`name` is a validated model name).
  func url(for name: String) -> String {
    var base = server.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    return "\(base)/v1/models/\(name):download"
  }

  func fetch(name: String, installationID: String, ifNoneMatch sha256: String?) async throws -> Answer {
    let url = url(for: name)
    var failures = 0
    while true {
      try Task.checkCancellation()
      var request = HTTPClientRequest(url: url)
      request.method = .GET
      request.headers.add(name: "Accept", value: "application/json")
      request.headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
      request.headers.add(name: ModelDownloader.installationIDHeader, value: installationID)
      if let apiKey { request.headers.add(name: "x-goog-api-key", value: apiKey) }
      if let sha256 { request.headers.add(name: "If-None-Match", value: "\"\(sha256)\"") }

      var retryReason = ""
      do {
        logger.debug("fetching model information", metadata: [
          "model": "\(name)", "url": "\(url)", "ifNoneMatch": "\(sha256 ?? "none")", "attempt": "\(failures + 1)",
        ])
        let response = try await httpClient.execute(request, deadline: .now() + Self.requestTimeout, logger: logger)
        let status = Int(response.status.code)
        let body = Data(try await response.body.collect(upTo: Self.maxBodyBytes).readableBytesView)
        switch status {
        case 200:
          let info: ModelDownloadInfo
          do {
            info = try JSONDecoder().decode(ModelDownloadInfo.self, from: body)
          } catch {
            throw ModelDownloadError.invalidServerResponse(reason: "undecodable model information: \(error)")
          }
          let (validated, downloadURL) = try info.validated(for: name)
          return .download(validated, downloadURL)
        case 304:
          guard sha256 != nil else { throw ModelDownloadError.invalidServerResponse(reason: "304 without If-None-Match") }
          return .notModified
        case 404:
          throw ModelDownloadError.modelNotFound(name: name)
        case let status where Self.retryableStatuses.contains(status):
          retryReason = "HTTP \(status): \(GoogleErrorEnvelope.message(from: body))"
          failures += 1
          if failures >= retryPolicy.maxAttemptsWithoutProgress {
            throw ModelDownloadError.serverError(status: status, message: GoogleErrorEnvelope.message(from: body))
          }
        default:
          throw ModelDownloadError.serverError(status: status, message: GoogleErrorEnvelope.message(from: body))
        }
      } catch let error as ModelDownloadError {
        throw error
      } catch {
        if TransportErrors.isCancellation(error) || Task.isCancelled { throw CancellationError() }
        if error is NIOTooManyBytesError {
          throw ModelDownloadError.invalidServerResponse(reason: "the model information is over \(Self.maxBodyBytes) bytes")
        }
        let failure = TransportErrors.beforeResponse(error, host: server.host ?? "")
        failures += 1
        guard failure.offlineReason == .connectionReset, failures < retryPolicy.maxAttemptsWithoutProgress else {
          logger.info("the model registry could not be reached", metadata: ["model": "\(name)", "error": "\(failure)"])
          throw failure
        }
        retryReason = failure.description
      }
      let delay = retryPolicy.delay(afterFailuresWithoutProgress: failures)
      logger.warning("retrying the model information request", metadata: [
        "model": "\(name)", "reason": "\(retryReason)", "attempt": "\(failures)", "delay": "\(delay)",
      ])
      try await Task.sleep(for: delay)
    }
  }
}
