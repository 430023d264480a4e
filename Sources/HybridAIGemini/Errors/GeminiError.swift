import HybridAI
import HybridAIWire

/// Why a Gemini request failed.
///
/// Only ``offline(_:detail:)`` means the service could not be reached at all (its
/// ``offlineReason`` is set): that is the one failure on which a prefer-cloud ``HybridModel``
/// falls back to the on-device model. Every other case means the request reached a server and
/// was refused, failed, or was answered with something unusable, and is thrown to the caller.
public enum GeminiError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The service could not be reached: DNS failure, refused or reset connection before any
  /// response, connect timeout, unreachable network. `detail` describes the underlying error.
  case offline(OfflineReason, detail: String)
  /// The API key was rejected (`API_KEY_INVALID`, or HTTP 401).
  case invalidAPIKey(APIError)
  /// The Generative Language API is not enabled for the key's project (`SERVICE_DISABLED`).
  case apiNotEnabled(APIError)
  /// The model does not exist or does not serve this method (HTTP 404).
  case unknownModel(APIError)
  /// The request was malformed or had an invalid value (HTTP 400).
  case invalidArgument(APIError)
  /// The key may not use this model or resource (HTTP 403).
  case permissionDenied(APIError)
  /// Rate limit or quota exceeded (HTTP 429 `RESOURCE_EXHAUSTED`), after the retries allowed.
  /// `retryAfter` is when the server said to try again, if it did.
  case quotaExceeded(APIError, retryAfter: Duration?)
  /// The server failed (HTTP 5xx), after the retries allowed.
  case serverError(APIError)
  /// Any other HTTP error status.
  case httpError(APIError)
  /// The prompt was blocked (`promptFeedback.blockReason`); there is no answer. `reason` is
  /// `nil` when the API gave feedback without a reason.
  case promptBlocked(reason: Gemini.BlockReason?, message: String?, response: GenerateContentResponse)
  /// The answer stopped early: for a reason other than `STOP` or `MAX_TOKENS` — a policy filter
  /// (`SAFETY`, `RECITATION`, …), `MALFORMED_FUNCTION_CALL`, `OTHER`, or one this library does
  /// not know. `response` holds what did come back (``partialText``).
  case responseStopped(reason: Gemini.FinishReason, message: String?, response: GenerateContentResponse)
  /// The request could not be sent as it is (it could not be encoded, e.g. a non-finite number).
  case invalidRequest(String)
  /// The response could not be understood (invalid JSON, an unexpected shape, an empty answer).
  case invalidResponse(String)
  /// The connection failed after the server had started answering (a stream cut short).
  case connectionLost(String)
  /// Any other transport failure that does not mean "offline" (TLS failure, read timeout, …).
  case transportFailure(String)

  /// An HTTP error as the API described it.
  public struct APIError: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public var httpStatus: Int
    /// The Google error body, when the response had one.
    public var error: GoogleErrorEnvelope.Body?
    /// The start of the response body, when it was not a Google error body.
    public var rawBody: String?

    /// An HTTP error from its status and body.
    public init(httpStatus: Int, error: GoogleErrorEnvelope.Body?, rawBody: String? = nil) {
      self.httpStatus = httpStatus
      self.error = error
      self.rawBody = rawBody
    }

    /// The error message: the API's, or the raw body, or the status code.
    public var message: String {
      if let message = error?.message, !message.isEmpty { return message }
      if let rawBody, !rawBody.isEmpty { return rawBody }
      return "HTTP \(httpStatus)"
    }

    /// The canonical status, e.g. `INVALID_ARGUMENT`.
    public var status: String? { error?.status }

    /// The `google.rpc.ErrorInfo` reason, e.g. `API_KEY_INVALID`.
    public var reason: String? { error?.reason }

    public var description: String {
      "HTTP \(httpStatus)" + (status.map { " \($0)" } ?? "") + (reason.map { " (\($0))" } ?? "") + ": \(message)"
    }
  }

  /// The HTTP error, for the cases that carry one.
  public var apiError: APIError? {
    switch self {
    case .invalidAPIKey(let error), .apiNotEnabled(let error), .unknownModel(let error), .invalidArgument(let error),
         .permissionDenied(let error), .quotaExceeded(let error, _), .serverError(let error), .httpError(let error):
      error
    default:
      nil
    }
  }

  /// The response that came back with ``promptBlocked(reason:message:response:)`` or
  /// ``responseStopped(reason:message:response:)``.
  public var response: GenerateContentResponse? {
    switch self {
    case .promptBlocked(_, _, let response), .responseStopped(_, _, let response): response
    default: nil
    }
  }

  /// The answer's text before it stopped (thoughts excluded; possibly empty), for
  /// ``responseStopped(reason:message:response:)``; `nil` for the other cases.
  public var partialText: String? {
    if case .responseStopped(_, _, let response) = self { return response.candidates.first?.text ?? "" }
    return nil
  }

  public var description: String {
    switch self {
    case .offline(let reason, let detail): "Gemini is unreachable: \(reason) (\(detail))"
    case .invalidAPIKey(let error): "the Gemini API key was rejected: \(error)"
    case .apiNotEnabled(let error): "the Gemini API is not enabled for this project: \(error)"
    case .unknownModel(let error): "unknown Gemini model: \(error)"
    case .invalidArgument(let error): "invalid Gemini request: \(error)"
    case .permissionDenied(let error): "permission denied by Gemini: \(error)"
    case .quotaExceeded(let error, let retryAfter):
      "Gemini quota exceeded: \(error)" + (retryAfter.map { " (retry after \($0))" } ?? "")
    case .serverError(let error): "Gemini server error: \(error)"
    case .httpError(let error) where error.httpStatus == 404:
      "no Gemini API at this URL (the base URL is the server's root, such as http://127.0.0.1:8080): \(error)"
    case .httpError(let error): "Gemini HTTP error: \(error)"
    case .promptBlocked(let reason, let message, _):
      "the prompt was blocked" + (reason.map { ": \($0)" } ?? "") + (message.map { " (\($0))" } ?? "")
    case .responseStopped(let reason, let message, let response):
      "the answer stopped early: \(reason)" + (message.map { " (\($0))" } ?? "")
        + (response.candidates.first?.text.isEmpty == false ? " after \(response.candidates[0].text.count) characters of text" : "")
    case .invalidRequest(let detail): "invalid request: \(detail)"
    case .invalidResponse(let detail): "invalid response from Gemini: \(detail)"
    case .connectionLost(let detail): "the connection to Gemini was lost mid-answer: \(detail)"
    case .transportFailure(let detail): "the request to Gemini failed: \(detail)"
    }
  }
}

extension GeminiError: ReachabilityError {
  /// Set only for ``offline(_:detail:)``.
  public var offlineReason: OfflineReason? {
    if case .offline(let reason, _) = self { return reason }
    return nil
  }
}

extension GeminiError: GenerationErrorConvertible {
  /// 429 → ``HybridAI/GenerationError/rateLimited(retryAfter:detail:)``; a blocked prompt or an
  /// answer stopped for safety (`SAFETY`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`,
  /// `IMAGE_SAFETY`, `RECITATION`) → ``HybridAI/GenerationError/guardrailViolation(_:)`` with the
  /// ratings; a 400 about the input token count → ``HybridAI/GenerationError/exceededContextWindowSize(promptTokens:contextSize:)``.
  public var generationError: GenerationError? {
    switch self {
    case .quotaExceeded(let error, let retryAfter):
      return .rateLimited(retryAfter: retryAfter, detail: error.description)
    case .promptBlocked(let reason, let message, let response):
      let ratings = response.promptFeedback?.safetyRatings ?? []
      return .guardrailViolation("the prompt was blocked (\(reason?.rawValue ?? "no reason given"))"
        + (message.map { ": \($0)" } ?? "") + Self.describe(ratings))
    case .responseStopped(let reason, let message, let response) where Gemini.FinishReason.guardrailReasons.contains(reason):
      let ratings = response.candidates.first?.safetyRatings ?? []
      return .guardrailViolation("the answer was stopped (\(reason.rawValue))" + (message.map { ": \($0)" } ?? "")
        + Self.describe(ratings))
    case .invalidArgument(let error):
      return GenerationError.contextOverflow(inMessage: error.description)
    default:
      return nil
    }
  }

  /// "; ratings: HARM_CATEGORY_… HIGH, …" for the ratings above LOW or marked blocked.
  private static func describe(_ ratings: [SafetyRating]) -> String {
    let flagged = ratings.filter { rating in
      rating.blocked == true || rating.probability.map { !["NEGLIGIBLE", "LOW"].contains($0.rawValue) } == true
    }
    guard !flagged.isEmpty else { return "" }
    return "; ratings: " + flagged.map { "\($0.category?.rawValue ?? "?") \($0.probability?.rawValue ?? "?")" }
      .joined(separator: ", ")
  }
}

extension Gemini.FinishReason {
  /// The finish reasons that mean a safety system stopped the answer.
  public static let guardrailReasons: Set<Gemini.FinishReason> = [
    .safety, .blocklist, .prohibitedContent, .spii, .imageSafety, .recitation,
  ]
}
