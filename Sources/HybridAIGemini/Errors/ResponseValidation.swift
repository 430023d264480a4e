extension GenerateContentResponse {
  /// The error a response stands for, or `nil` when it is a usable answer.
  ///
  /// - The prompt was blocked (`promptFeedback.blockReason`, or — once complete — feedback and
  ///   no candidates): ``GeminiError/promptBlocked(reason:message:response:)``.
  /// - The first candidate stopped for any reason but `STOP` or `MAX_TOKENS` — a policy filter
  ///   (`SAFETY`, `RECITATION`, …), `MALFORMED_FUNCTION_CALL`, `OTHER`, or a reason this library
  ///   does not know — even with some text: ``GeminiError/responseStopped(reason:message:response:)``,
  ///   whose response holds the partial answer (``GeminiError/partialText``), as Firebase does.
  /// - No candidates at all, or (when `complete`) no finish reason and nothing usable:
  ///   ``GeminiError/invalidResponse(_:)``.
  ///
  /// - Parameter complete: whether this is the whole answer (a unary response, or a stream that
  ///   ended); a stream still running is only checked for blocks.
  public func validationFailure(complete: Bool) -> GeminiError? {
    if let reason = promptFeedback?.blockReason {
      return .promptBlocked(reason: reason, message: promptFeedback?.blockReasonMessage, response: self)
    }
    guard let candidate = candidates.first else {
      guard complete else { return nil }  // a stream may send feedback before its first candidate
      if let feedback = promptFeedback {
        return .promptBlocked(reason: nil, message: feedback.blockReasonMessage, response: self)
      }
      return .invalidResponse("the response has no candidates")
    }
    guard let reason = candidate.finishReason else {
      if complete, !candidate.hasUsableContent {
        return .invalidResponse("the answer has no content and no finish reason")
      }
      return nil
    }
    if reason.isSuccess { return nil }
    return .responseStopped(reason: reason, message: candidate.finishMessage, response: self)
  }
}

extension Gemini.Candidate {
  /// Whether the candidate holds something besides thoughts: answer text, or non-text data
  /// (a function call, inline data, code, …).
  public var hasUsableContent: Bool {
    content?.parts.contains { part in
      switch part.data {
      case .text(let text): !part.isThought && !text.isEmpty
      case nil: false
      default: true
      }
    } ?? false
  }
}
