import AsyncHTTPClient
import Foundation
import HybridAI
import Logging
import NIOCore
import NIOHTTP1

/// Sends a cloud API's requests: retries 429/500/503/504 as the ``HTTPRetryPolicy`` says
/// (honouring `Retry-After` and the error body's retry delay), and turns every failure into the
/// client's ``CloudServiceError``: HTTP errors by status, failures before any response into
/// `offline` (unreachable, see ``OfflineClassification``) or `transportFailure`, failures while a
/// body arrives into `connectionLost`; cancellation into `CancellationError`.
///
/// Shared by `GeminiClient` and `OpenAIClient`, so both retry, time out and classify alike.
public struct CloudHTTPTransport<Failure: CloudServiceError>: Sendable {
  /// The client that makes the calls.
  public let httpClient: HTTPClient
  /// Retries after 429 and 5xx.
  public let retryPolicy: HTTPRetryPolicy
  /// A limit on each whole request; `nil` for none.
  public let requestTimeout: Duration?
  /// The service's name in log messages ("Gemini").
  public let serviceName: String
  let logger: Logger

  /// The most bytes read from an error response body.
  public static var maxErrorBodyBytes: Int { 1 << 20 }

  public init(httpClient: HTTPClient, retryPolicy: HTTPRetryPolicy, requestTimeout: Duration?, serviceName: String,
              logger: Logger) {
    self.httpClient = httpClient
    self.retryPolicy = retryPolicy
    self.requestTimeout = requestTimeout
    self.serviceName = serviceName
    self.logger = logger
  }

  /// Whether `error` says the connection was already closed when the request went out (no
  /// response head came back).
  static func isClosedPooledConnection(_ error: any Error) -> Bool {
    if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
    if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .alreadyClosed { return true }
    return false
  }

  /// Sends a request and returns the response once its head arrived with a 2xx status.
  ///
  /// - Parameters:
  ///   - headers: sent with every attempt (`content-type: application/json` is added with a body).
  ///   - operation: the call's name, for logs.
  public func send(_ method: HTTPMethod, url: String, headers: [(String, String)], body: Data?,
                   operation: String) async throws -> HTTPClientResponse {
    var logger = self.logger
    logger[metadataKey: "operation"] = "\(operation)"
    let host = URL(string: url)?.host ?? ""
    var attempt = 1
    var resentAfterClose = false
    while true {
      try Task.checkCancellation()
      var request = HTTPClientRequest(url: url)
      request.method = method
      for (name, value) in headers { request.headers.add(name: name, value: value) }
      if let body {
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
      }
      let deadline = requestTimeout.map { NIODeadline.now() + TimeAmount($0) } ?? .distantFuture

      let response: HTTPClientResponse
      do {
        logger.debug("sending \(serviceName) request", metadata: ["url": "\(url)", "attempt": "\(attempt)"])
        response = try await httpClient.execute(request, deadline: deadline, logger: logger)
      } catch where Self.isClosedPooledConnection(error) && !resentAfterClose {
        // A kept-alive connection the server closed just as it was reused (llama-server closes a
        // connection after a streamed answer, and idle ones after 5 s): the request was not
        // answered; send it once more on a new connection.
        resentAfterClose = true
        logger.debug("the server closed the connection before answering; sending again", metadata: ["url": "\(url)"])
        continue
      } catch {
        throw transportError(error, host: host, logger: logger)
      }

      let status = Int(response.status.code)
      if (200..<300).contains(status) { return response }

      let errorBody = (try? await response.body.collect(upTo: Self.maxErrorBodyBytes)).map { Data($0.readableBytesView) } ?? Data()
      let retryAfterHeader = response.headers.first(name: "retry-after")
      let error = Failure.http(status: status, body: errorBody, retryAfterHeader: retryAfterHeader)
      let serverDelay = HTTPRetryPolicy.delay(retryAfterHeader: retryAfterHeader) ?? error.retryDelayFromBody
      if HTTPRetryPolicy.retryableStatuses.contains(status),
         let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: serverDelay) {
        logger.warning("retrying \(serviceName) request", metadata: [
          "status": "\(status)", "attempt": "\(attempt)", "maxAttempts": "\(retryPolicy.maxAttempts)",
          "delay": "\(delay)", "retryAfter": "\(serverDelay.map { "\($0)" } ?? "none")", "error": "\(error)",
        ])
        try await Task.sleep(for: delay)
        attempt += 1
        continue
      }
      logger.debug("\(serviceName) request failed", metadata: ["status": "\(status)", "error": "\(error)"])
      throw error
    }
  }

  /// Reads a whole (unary) response body of at most `limit` bytes; a failure here happened after
  /// the response began, so it is never offline.
  public func collectBody(_ response: HTTPClientResponse, upTo limit: Int) async throws -> Data {
    do {
      return Data(try await response.body.collect(upTo: limit).readableBytesView)
    } catch {
      throw bodyError(error)
    }
  }

  /// The error for a failure while reading a response body (after the head arrived).
  public func bodyError(_ error: any Error) -> any Error {
    if Self.isCancellation(error) { return CancellationError() }
    if let error = error as? Failure { return error }
    if error is NIOTooManyBytesError { return Failure.invalidResponse("the response body is too large") }
    return Failure.connectionLost(String(describing: error))
  }

  /// The error for a failure before any response head arrived.
  public func transportError(_ error: any Error, host: String, logger: Logger) -> any Error {
    if Self.isCancellation(error) { return CancellationError() }
    // A read timeout before the head is offline too (noResponse): nothing arrived, so (like a
    // refused connection) the other model of a hybrid may answer.
    if let reason = OfflineClassification.offlineReason(for: error, host: host) {
      logger.info("\(serviceName) is unreachable", metadata: ["reason": "\(reason)", "error": "\(error)"])
      return Failure.offline(reason, detail: OfflineClassification.detail(of: error))
    }
    logger.debug("\(serviceName) request failed before a response", metadata: ["error": "\(error)"])
    if (error as? HTTPClientError) == .deadlineExceeded { return Failure.transportFailure("the request timed out") }
    return Failure.transportFailure(String(describing: error))
  }

  /// Whether `error` (or the current task) means the request was cancelled.
  public static func isCancellation(_ error: any Error) -> Bool {
    Task.isCancelled || error is CancellationError || (error as? HTTPClientError) == .cancelled
  }
}
