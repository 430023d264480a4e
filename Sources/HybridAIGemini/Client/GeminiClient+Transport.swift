import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIHTTP
import Logging
import NIOCore
import NIOHTTP1

extension GeminiClient {
  /// The most bytes read from a unary response body (answers may hold inline images).
  static let maxResponseBytes = 64 << 20
  /// The most bytes read from an error response body.
  static let maxErrorBodyBytes = 1 << 20

  /// Sends a request and returns the response once its head arrived with a 2xx status.
  ///
  /// Retries 429/500/503/504 as the retry policy says, honouring `Retry-After`; turns every other
  /// HTTP error into its ``GeminiError`` and transport failures into ``GeminiError/offline(_:detail:)``
  /// (unreachable) or ``GeminiError/transportFailure(_:)``; cancellation into `CancellationError`.
  func send(_ method: HTTPMethod, _ endpoint: Endpoint, body: Data?, accept: String = "application/json",
            operation: String) async throws -> HTTPClientResponse {
    let url = endpoint.url(baseURL: baseURL, apiVersion: configuration.apiVersion)
    var logger = self.logger
    logger[metadataKey: "operation"] = "\(operation)"
    let policy = configuration.retryPolicy
    var attempt = 1
    while true {
      try Task.checkCancellation()
      var request = HTTPClientRequest(url: url)
      request.method = method
      request.headers.add(name: "accept", value: accept)
      request.headers.add(name: "user-agent", value: "HybridAI-Gemini/1")
      if let apiKey { request.headers.add(name: "x-goog-api-key", value: apiKey) }
      if let body {
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
      }
      let deadline = configuration.requestTimeout.map { NIODeadline.now() + TimeAmount($0) } ?? .distantFuture

      let response: HTTPClientResponse
      do {
        logger.debug("sending Gemini request", metadata: ["url": "\(url)", "attempt": "\(attempt)"])
        response = try await httpClient.execute(request, deadline: deadline, logger: logger)
      } catch {
        throw transportError(error, host: baseURL.host ?? "", logger: logger)
      }

      let status = Int(response.status.code)
      if (200..<300).contains(status) { return response }

      let errorBody = (try? await response.body.collect(upTo: Self.maxErrorBodyBytes)).map { Data($0.readableBytesView) } ?? Data()
      let retryAfterHeader = response.headers.first(name: "retry-after")
      let error = GeminiError.http(status: status, body: errorBody, retryAfterHeader: retryAfterHeader)
      let serverDelay = GeminiError.parseRetryAfter(retryAfterHeader) ?? error.apiError?.error?.retryDelay
      if RetryPolicy.retryableStatuses.contains(status),
         let delay = policy.delay(afterAttempt: attempt, retryAfter: serverDelay) {
        logger.warning("retrying Gemini request", metadata: [
          "status": "\(status)", "attempt": "\(attempt)", "maxAttempts": "\(policy.maxAttempts)",
          "delay": "\(delay)", "retryAfter": "\(serverDelay.map { "\($0)" } ?? "none")",
          "error": "\(error.apiError?.message ?? "")",
        ])
        try await Task.sleep(for: delay)
        attempt += 1
        continue
      }
      logger.debug("Gemini request failed", metadata: ["status": "\(status)", "error": "\(error)"])
      throw error
    }
  }

  /// Reads a whole (unary) response body; a failure here happened after the response began, so
  /// it is ``GeminiError/connectionLost(_:)``, never offline.
  func collectBody(_ response: HTTPClientResponse) async throws -> Data {
    do {
      return Data(try await response.body.collect(upTo: Self.maxResponseBytes).readableBytesView)
    } catch {
      throw bodyError(error)
    }
  }

  /// The error for a failure while reading a response body (after the head arrived).
  func bodyError(_ error: any Error) -> any Error {
    if Self.isCancellation(error) { return CancellationError() }
    if let error = error as? GeminiError { return error }
    if error is NIOTooManyBytesError { return GeminiError.invalidResponse("the response body is too large") }
    return GeminiError.connectionLost(String(describing: error))
  }

  /// The error for a failure before any response head arrived.
  func transportError(_ error: any Error, host: String, logger: Logger) -> any Error {
    if Self.isCancellation(error) { return CancellationError() }
    if let reason = OfflineClassification.offlineReason(for: error, host: host) {
      logger.info("Gemini is unreachable", metadata: ["reason": "\(reason)", "error": "\(error)"])
      return GeminiError.offline(reason, detail: String(describing: error))
    }
    logger.debug("Gemini request failed before a response", metadata: ["error": "\(error)"])
    if let error = error as? HTTPClientError {
      if error == .readTimeout { return GeminiError.transportFailure("no response within the read timeout") }
      if error == .deadlineExceeded { return GeminiError.transportFailure("the request timed out") }
    }
    return GeminiError.transportFailure(String(describing: error))
  }

  static func isCancellation(_ error: any Error) -> Bool {
    Task.isCancelled || error is CancellationError || (error as? HTTPClientError) == .cancelled
  }
}
