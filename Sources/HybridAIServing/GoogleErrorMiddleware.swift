import Foundation
import Hummingbird
import Logging
import NIOCore

/// Turns every error — ours, Hummingbird's (unknown route, body too large) or anything else — into
/// Google's error envelope with the matching HTTP status, so clients never see a bare error page.
/// Products map their own errors to ``GoogleAPIError`` first (the Gemini API maps a model's
/// failures); what is left is `500 INTERNAL`.
public struct GoogleErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The body limit, for the message of a `413`.
  public let maxRequestBytes: Int

  /// What a client is told of a failure inside the server (Google's words); the log has the cause.
  public static var internalErrorMessage: String { "Internal error encountered." }

  /// A middleware that reports `maxRequestBytes` as the limit of a too-large body.
  public init(maxRequestBytes: Int) { self.maxRequestBytes = maxRequestBytes }

  public func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch {
      let apiError = translate(error, path: request.uri.path)
      if apiError.status == .internalServerError, !(error is GoogleAPIError) {
        // What failed inside (a path, a database's message) goes to the log, not to the client.
        context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
      } else {
        context.logger.info("request failed", metadata: [
          "path": "\(request.uri.path)", "status": "\(apiError.status.code)", "error": "\(apiError.message)",
        ])
      }
      return apiError.response
    }
  }

  private func translate(_ error: any Error, path: String) -> GoogleAPIError {
    if let error = error as? GoogleAPIError { return error }
    if error is NIOTooManyBytesError { return .payloadTooLarge(limit: maxRequestBytes) }
    if let error = error as? HTTPError {
      switch error.status {
      case .contentTooLarge: return .payloadTooLarge(limit: maxRequestBytes)
      case .notFound: return GoogleAPIError(status: .notFound, statusName: "NOT_FOUND",
                                            message: "The requested URL \(path) was not found on this server.", reason: nil)
      case .methodNotAllowed: return GoogleAPIError(status: .methodNotAllowed, statusName: "UNIMPLEMENTED",
                                                    message: "Method not allowed for \(path).", reason: nil)
      default: return GoogleAPIError(status: error.status, statusName: "INVALID_ARGUMENT",
                                     message: error.body ?? error.status.reasonPhrase, reason: nil)
      }
    }
    return .internal(Self.internalErrorMessage)
  }
}

extension GoogleAPIError {
  /// The HTTP response: Google's envelope as JSON.
  public var response: Response {
    let data = (try? JSONEncoder.api.encode(envelope)) ?? Data()
    var headers = self.headers
    headers[.contentType] = "application/json; charset=UTF-8"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}

extension JSONEncoder {
  /// The encoder for API responses: slashes unescaped, as Google's APIs write them.
  public static var api: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return encoder
  }
}
