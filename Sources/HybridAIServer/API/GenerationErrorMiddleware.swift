import HTTPTypes
import HybridAI
import HybridAIServing
import Hummingbird

/// Maps a model's failures (``GenerationError``, an ``AnswerInterruption``, media it cannot read) thrown from the Gemini API's routes to Google's
/// errors, before ``GoogleErrorMiddleware`` writes them (which also turns Hummingbird's errors,
/// such as a body over the limit, into Google's; anything else is `500 INTERNAL`).
struct GenerationErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context,
              next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as GenerationError {
      throw GoogleAPIError.from(generationError: error)
    } catch let error as AttachmentError {
      throw GoogleAPIError.from(generationError: error)
    } catch let error where AnswerInterruption(error) != nil {
      throw GoogleAPIError.from(generationError: error)
    }
  }
}

extension GoogleAPIError {
  /// The API error for a failure of the model behind the server.
  static func from(generationError error: any Error) -> GoogleAPIError {
    switch error {
    case let error as GoogleAPIError:
      return error
    case GenerationError.exceededContextWindowSize(let prompt, let context):
      return .invalidArgument("The input token count (\(prompt)) exceeds the maximum number of tokens allowed (\(context)).")
    case GenerationError.unsupportedRequest(let reason):
      return .invalidArgument("Unsupported request: \(reason).")
    case GenerationError.rateLimited(let retryAfter, let detail):
      return .rateLimited("Rate limited: \(detail)", retryAfter: retryAfter)
    case GenerationError.guardrailViolation(let detail):
      return .invalidArgument("Blocked by a safety guardrail: \(detail).")
    case GenerationError.refusal(let explanation):
      return .invalidArgument("The model refused: \(explanation)")
    case GenerationError.exceededTokenLimit(let limit, _):
      return .invalidArgument("The answer reached the limit of \(limit.map { "\($0) tokens" } ?? "its tokens") before the "
        + "structured answer was complete; allow more output tokens (maxOutputTokens, max_tokens).")
    case GenerationError.unsupportedCapability(let what):
      return .invalidArgument("Unsupported: \(what).")
    case let error as AttachmentError:
      // An image or sound the client sent that the model cannot read (corrupt, a decompression bomb).
      return .invalidArgument("Unreadable media: \(error).")
    case GenerationError.modelUnavailable(let reason, let detail):
      return .unavailable("The model is unavailable: \(reason) (\(detail)).")
    case _ where AnswerInterruption(error) == .modelShuttingDown:
      return .unavailable("The server is shutting down; the answer was not finished. Retry on another instance.")
    case _ where AnswerInterruption(error) == .toolCallCutShort:
      return .invalidArgument("The model's tool call did not fit in the output token limit; allow more output tokens "
        + "(maxOutputTokens, max_tokens).")
    default:
      return .internal("The model failed: \(error)")
    }
  }
}
