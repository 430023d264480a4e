import Foundation
import HybridAI
import HybridAIHTTP

/// Why a request to an OpenAI-compatible server failed.
///
/// Only ``offline(_:detail:)`` means the server could not be reached at all (its
/// ``offlineReason`` is set): that is the one failure on which a prefer-cloud ``HybridAI/HybridModel``
/// falls back to the on-device model. Every other case means the request reached a server and was
/// refused, failed, or was answered with something unusable, and is thrown to the caller.
public enum OpenAIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The server could not be reached: DNS failure, refused or reset connection before any
  /// response, connect timeout, unreachable network. `detail` describes the underlying error.
  case offline(OfflineReason, detail: String)
  /// The API key was missing or rejected (HTTP 401).
  case invalidAPIKey(APIError)
  /// The key may not do this (HTTP 403).
  case permissionDenied(APIError)
  /// The model does not exist on the server (HTTP 404).
  case unknownModel(APIError)
  /// The request was malformed or had an invalid value (HTTP 400, 413, 422).
  case invalidRequest(APIError)
  /// Rate limit or quota exceeded (HTTP 429), after the retries allowed. `retryAfter` is when the
  /// server said to try again, if it did.
  case rateLimited(APIError, retryAfter: Duration?)
  /// The server failed (HTTP 5xx), after the retries allowed.
  case serverError(APIError)
  /// Any other HTTP error status.
  case httpError(APIError)
  /// The server ended the answer with `finish_reason` `content_filter`: what came back is in
  /// `partialText`.
  case contentFiltered(partialText: String)
  /// The model refused to answer (the message's `refusal` instead of content).
  case refused(explanation: String)
  /// The request could not be encoded (e.g. a non-finite number).
  case unencodableRequest(String)
  /// The response could not be understood (invalid JSON, an unexpected shape, no choice).
  case invalidResponse(String)
  /// The connection failed after the server had started answering (a stream cut short).
  case connectionLost(String)
  /// Any other transport failure that does not mean "offline" (TLS failure, read timeout, …).
  case transportFailure(String)

  /// An HTTP error as the server described it.
  public struct APIError: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public var httpStatus: Int
    /// OpenAI's error body, when the response had one.
    public var error: OpenAIErrorEnvelope.Body?
    /// The start of the response body, when it was not OpenAI's envelope.
    public var rawBody: String?

    public init(httpStatus: Int, error: OpenAIErrorEnvelope.Body?, rawBody: String? = nil) {
      self.httpStatus = httpStatus
      self.error = error
      self.rawBody = rawBody
    }

    /// The server's message, or the raw body, or the status code.
    public var message: String {
      if let message = error?.message, !message.isEmpty { return message }
      if let rawBody, !rawBody.isEmpty { return rawBody }
      return "HTTP \(httpStatus)"
    }

    public var description: String {
      "HTTP \(httpStatus)" + (error.map { " \($0.type)" } ?? "") + (error?.code.map { " (\($0))" } ?? "")
        + (error?.param.map { " [\($0)]" } ?? "") + ": \(message)"
    }
  }

  /// The typed error for an HTTP error response: its status and body (OpenAI's envelope — or a
  /// bare `{"message": …}` or Google's list-wrapped envelope, as some compatible servers send —
  /// or anything else).
  ///
  /// | status | error |
  /// |---|---|
  /// | 401 | ``invalidAPIKey(_:)`` |
  /// | 403 | ``permissionDenied(_:)`` |
  /// | 404 | ``unknownModel(_:)`` |
  /// | 400, 413, 422 | ``invalidRequest(_:)`` |
  /// | 429 | ``rateLimited(_:retryAfter:)`` (`Retry-After` header) |
  /// | 5xx | ``serverError(_:)`` |
  /// | other | ``httpError(_:)`` |
  public static func http(status: Int, body: Data, retryAfterHeader: String? = nil) -> OpenAIError {
    let envelope = OpenAIErrorEnvelope.lenientlyDecoded(from: body)
    let apiError = APIError(httpStatus: status, error: envelope?.error,
                            rawBody: envelope == nil ? String(decoding: body.prefix(2048), as: UTF8.self) : nil)
    switch status {
    case 401: return .invalidAPIKey(apiError)
    case 403: return .permissionDenied(apiError)
    case 404: return .unknownModel(apiError)
    case 400, 413, 422: return .invalidRequest(apiError)
    case 429: return .rateLimited(apiError, retryAfter: HTTPRetryPolicy.delay(retryAfterHeader: retryAfterHeader))
    case 500..<600: return .serverError(apiError)
    default: return .httpError(apiError)
    }
  }

  /// The HTTP error, for the cases that carry one.
  public var apiError: APIError? {
    switch self {
    case .invalidAPIKey(let error), .permissionDenied(let error), .unknownModel(let error), .invalidRequest(let error),
         .rateLimited(let error, _), .serverError(let error), .httpError(let error):
      error
    default:
      nil
    }
  }

  public var description: String {
    switch self {
    case .offline(let reason, let detail): "the OpenAI-compatible server is unreachable: \(reason) (\(detail))"
    case .invalidAPIKey(let error): "the API key was rejected: \(error)"
    case .permissionDenied(let error): "permission denied: \(error)"
    case .unknownModel(let error): "unknown model: \(error)"
    case .invalidRequest(let error): "invalid request: \(error)"
    case .rateLimited(let error, let retryAfter):
      "rate limited: \(error)" + (retryAfter.map { " (retry after \($0))" } ?? "")
    case .serverError(let error): "server error: \(error)"
    case .httpError(let error): "HTTP error: \(error)"
    case .contentFiltered(let partialText):
      "the server's content filter stopped the answer" + (partialText.isEmpty ? "" : " after \(partialText.count) characters")
    case .refused(let explanation): "the model refused to answer: \(explanation)"
    case .unencodableRequest(let detail): "the request could not be encoded: \(detail)"
    case .invalidResponse(let detail): "invalid response from the OpenAI-compatible server: \(detail)"
    case .connectionLost(let detail): "the connection was lost mid-answer: \(detail)"
    case .transportFailure(let detail): "the request failed: \(detail)"
    }
  }
}

extension OpenAIError: ReachabilityError {
  /// Set only for ``offline(_:detail:)``.
  public var offlineReason: OfflineReason? {
    if case .offline(let reason, _) = self { return reason }
    return nil
  }
}

extension OpenAIErrorEnvelope {
  /// The error body of `data`: OpenAI's `{"error": {…}}` (with `type` optional, as llama-server
  /// and vLLM omit or vary it), `{"error": "text"}`, or a Google envelope in a one-element list.
  static func lenientlyDecoded(from data: Data) -> OpenAIErrorEnvelope? {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
    var root = value
    if case .array(let items) = value, items.count == 1 { root = items[0] }
    guard case .object(let object) = root, let error = object["error"] else { return nil }
    switch error {
    case .string(let message):
      return OpenAIErrorEnvelope(message: message, type: "error")
    case .object(let fields):
      func text(_ key: String) -> String? {
        switch fields[key] {
        case .string(let value)?: value
        case .number(let value)?: value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: nil
        }
      }
      return OpenAIErrorEnvelope(message: text("message") ?? "", type: text("type") ?? text("status") ?? "error",
                                 param: text("param"), code: text("code"))
    default:
      return nil
    }
  }
}

extension OpenAIError: GenerationErrorConvertible {
  /// 429 → ``HybridAI/GenerationError/rateLimited(retryAfter:detail:)``; `content_filter` →
  /// ``HybridAI/GenerationError/guardrailViolation(_:)``; a refusal →
  /// ``HybridAI/GenerationError/refusal(explanation:)``; a 400 about the input token count (the
  /// wording of `hybrid serve`) → ``HybridAI/GenerationError/exceededContextWindowSize(promptTokens:contextSize:)``.
  public var generationError: GenerationError? {
    switch self {
    case .rateLimited(let error, let retryAfter):
      .rateLimited(retryAfter: retryAfter, detail: error.description)
    case .contentFiltered(let partialText):
      .guardrailViolation("the server's content filter stopped the answer"
        + (partialText.isEmpty ? "" : " after \(partialText.count) characters"))
    case .refused(let explanation):
      .refusal(explanation: explanation)
    case .invalidRequest(let error):
      GenerationError.contextOverflow(inMessage: error.message)
    default:
      nil
    }
  }
}
