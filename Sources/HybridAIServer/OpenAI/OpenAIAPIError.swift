import Foundation
import HTTPTypes
import HybridAI
import HybridAIOpenAIWire
import HybridAIServing
import Hummingbird
import Logging
import NIOCore

/// An error the OpenAI API answers with: a status and OpenAI's envelope (`type`, `param`, `code`),
/// so OpenAI clients raise their usual exceptions (`BadRequestError`, `AuthenticationError`,
/// `NotFoundError`, `RateLimitError`, `InternalServerError`).
struct OpenAIAPIError: Error, Sendable {
  var status: HTTPResponse.Status
  var envelope: OpenAIErrorEnvelope

  init(status: HTTPResponse.Status, message: String, type: String, param: String? = nil, code: String? = nil) {
    self.status = status
    self.envelope = OpenAIErrorEnvelope(message: message, type: type, param: param, code: code)
  }

  static func invalidRequest(_ message: String, param: String? = nil, code: String? = nil) -> OpenAIAPIError {
    OpenAIAPIError(status: .badRequest, message: message, type: "invalid_request_error", param: param, code: code)
  }

  static func modelNotFound(_ name: String) -> OpenAIAPIError {
    OpenAIAPIError(status: .notFound, message: "The model `\(name)` does not exist or you do not have access to it.",
                   type: "invalid_request_error", param: "model", code: "model_not_found")
  }

  /// The OpenAI form of any error a route throws: conversion errors, the model's failures, the
  /// server's (Google-style) errors from shared middleware, Hummingbird's.
  static func from(_ error: any Error, maxRequestBytes: Int) -> OpenAIAPIError {
    switch error {
    case let error as OpenAIAPIError:
      return error
    case let error as OpenAIConversionError:
      return .invalidRequest(error.description, param: error.param)
    case let error as GoogleAPIError:
      return from(google: error)
    case is NIOTooManyBytesError:
      return OpenAIAPIError(status: .contentTooLarge, message: "Request body exceeds the limit of \(maxRequestBytes) bytes.",
                            type: "invalid_request_error")
    case let error as HTTPError where error.status == .contentTooLarge:
      return OpenAIAPIError(status: .contentTooLarge, message: "Request body exceeds the limit of \(maxRequestBytes) bytes.",
                            type: "invalid_request_error")
    case let error as HTTPError:
      return OpenAIAPIError(status: error.status, message: error.body ?? error.status.reasonPhrase,
                            type: "invalid_request_error")
    case GenerationError.unsupportedRequest(.unsupportedSchema):
      return .invalidRequest(GoogleAPIError.from(generationError: error).message, param: "response_format")
    case GenerationError.exceededContextWindowSize, GenerationError.unsupportedRequest(.exceedsContextWindow):
      // OpenAI's code for it, which agents look for to shorten the conversation.
      return .invalidRequest(GoogleAPIError.from(generationError: error).message, param: "messages", code: "context_length_exceeded")
    case GenerationError.unsupportedRequest(.unsupportedToolParameters):
      return .invalidRequest(GoogleAPIError.from(generationError: error).message, param: "tools")
    case _ where AnswerInterruption(error) == .toolCallCutShort:
      return .invalidRequest(GoogleAPIError.from(generationError: error).message, param: "max_completion_tokens")
    case is AttachmentError:
      return .invalidRequest(GoogleAPIError.from(generationError: error).message, param: "messages")
    case is GenerationError:
      return from(google: GoogleAPIError.from(generationError: error))
    case _ where AnswerInterruption(error) == .modelShuttingDown:
      return from(google: GoogleAPIError.from(generationError: error))
    default:
      return OpenAIAPIError(status: .internalServerError, message: "The server had an error while processing your request.",
                            type: "server_error")
    }
  }

  /// The OpenAI form of an error in Google's terms (same status; keys as OpenAI names them).
  static func from(google error: GoogleAPIError) -> OpenAIAPIError {
    switch error.reason {
    case "API_KEY_INVALID"?:
      return OpenAIAPIError(status: .unauthorized, message: "Incorrect API key provided.", type: "invalid_request_error",
                            code: "invalid_api_key")
    case "API_KEY_MISSING"?:
      return OpenAIAPIError(status: .unauthorized, message: "You didn't provide an API key (Authorization: Bearer KEY).",
                            type: "invalid_request_error", code: "invalid_api_key")
    default:
      break
    }
    // GET /v1/models/NAME, shared by both APIs, names an unknown model.
    if let name = error.missingModel { return .modelNotFound(name) }
    let type = switch error.status.code {
    case 400, 404, 409, 413, 422: "invalid_request_error"
    case 401: "authentication_error"
    case 403: "permission_error"
    case 429: "rate_limit_error"
    default: "server_error"
    }
    return OpenAIAPIError(status: error.status, message: error.message, type: type, code: error.statusName.lowercased())
  }

  var response: Response {
    let data = (try? JSONEncoder.api.encode(envelope)) ?? Data()
    return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}

/// Writes every error of the OpenAI API's routes in OpenAI's envelope (the server's outer
/// middleware would write Google's).
struct OpenAIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  let maxRequestBytes: Int
  /// Only for requests that carry `Authorization: Bearer …` (OpenAI clients), on routes both APIs
  /// share (`GET /v1/models`); other errors go on to Google's envelope.
  var onlyForBearerCredentials = false

  func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch where !onlyForBearerCredentials || request.headers[.authorization]?.lowercased().hasPrefix("bearer ") == true {
      let apiError = OpenAIAPIError.from(error, maxRequestBytes: maxRequestBytes)
      if apiError.status == .internalServerError, !(error is OpenAIAPIError), !(error is GoogleAPIError) {
        // What failed inside goes to the log, not to the client.
        context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
      } else {
        context.logger.info("request failed", metadata: [
          "path": "\(request.uri.path)", "status": "\(apiError.status.code)", "error": "\(apiError.envelope.error.message)",
        ])
      }
      return apiError.response
    }
  }
}

/// JSON responses of the OpenAI API.
enum OpenAIResponses {
  static func json(_ value: some Encodable) throws -> Response {
    Response(status: .ok, headers: [.contentType: "application/json"],
             body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.api.encode(value))))
  }
}

extension OpenAIAPIError {
  /// Ends a stream that failed after its headers went (its generations already stopped): logged,
  /// and the error written as its last event, unless the client left (a cancellation).
  static func endStream(_ writer: inout any ResponseBodyWriter, after error: any Error, logger: Logger) async {
    logger.info("stream ended early", metadata: ["error": "\(error)"])
    guard !(error is CancellationError) else { return }
    try? await writer.write(ServerSentEvents.event(from(error, maxRequestBytes: 0).envelope, style: .openAI))
  }
}
