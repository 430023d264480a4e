import Foundation
import HybridAI
import HybridAIGemini

/// Builds the Gemini responses of one answer: a chunk per text delta, and a final chunk with the
/// finish reason and the true token usage. All chunks share one `responseId`.
struct ResponseChunks {
  let modelVersion: String
  let responseId = Self.makeResponseId()

  init(modelVersion: String) { self.modelVersion = modelVersion }

  /// A streaming chunk carrying one text delta.
  func delta(_ text: String) -> GenerateContentResponse {
    response(text: text, finishReason: nil, usage: nil)
  }

  /// The last chunk (streaming: its remaining text, often empty) or the whole unary answer.
  func final(text: String, completion: RawResponse) -> GenerateContentResponse {
    response(text: text, finishReason: Self.wireFinishReason(completion.finishReason), usage: completion.usage)
  }

  private func response(text: String, finishReason: Gemini.FinishReason?, usage: Usage?) -> GenerateContentResponse {
    let usageMetadata = usage.map {
      UsageMetadata(promptTokenCount: $0.promptTokens,
                    cachedContentTokenCount: $0.cachedPromptTokens > 0 ? $0.cachedPromptTokens : nil,
                    candidatesTokenCount: $0.outputTokens, totalTokenCount: $0.totalTokens)
    }
    return .text(text, finishReason: finishReason, usage: usageMetadata, modelVersion: modelVersion, responseId: responseId)
  }

  static func wireFinishReason(_ reason: FinishReason) -> Gemini.FinishReason {
    switch reason {
    case .stop: .stop
    case .maxTokens, .contextWindowFull: .maxTokens
    case .other(let value): Gemini.FinishReason(rawValue: value == value.uppercased() ? value : "OTHER")
    }
  }

  private static func makeResponseId() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return String((0..<22).map { _ in alphabet.randomElement()! })
  }
}
