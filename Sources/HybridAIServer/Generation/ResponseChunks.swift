import Foundation
import HybridAI
import HybridAIGemini

/// Builds the Gemini responses of one answer: a chunk per text delta, and a final chunk with the
/// finish reason, the true token usage and the model's function calls, if any. All chunks share
/// one `responseId`.
struct ResponseChunks {
  let modelVersion: String
  let responseId = Self.makeResponseId()

  init(modelVersion: String) { self.modelVersion = modelVersion }

  /// A streaming chunk carrying one text delta.
  func delta(_ text: String) -> GenerateContentResponse {
    response(text: text, toolCalls: [], finishReason: nil, usage: nil)
  }

  /// A streaming chunk carrying one file the model made, as an `inlineData` part.
  func file(_ file: Artifact) throws -> GenerateContentResponse {
    response(text: "", files: [try Self.inlineData(file)], toolCalls: [], finishReason: nil, usage: nil)
  }

  /// The last chunk (streaming: its remaining text, often empty) or the whole unary answer. Files
  /// become `inlineData` parts and tool calls `functionCall` parts (with their ids) after the
  /// text; an answer that calls tools finishes with `STOP`, as Gemini's do. Log probabilities, when
  /// asked for, are the candidate's `logprobsResult` and `avgLogprobs`.
  func final(text: String, files: [Artifact] = [], toolCalls: [Transcript.ToolCall] = [],
             completion: RawResponse) throws -> GenerateContentResponse {
    let reason = toolCalls.isEmpty ? Self.wireFinishReason(completion.finishReason) : .stop
    var final = response(text: text, files: try files.map(Self.inlineData), toolCalls: toolCalls, finishReason: reason,
                         usage: completion.usage)
    if let entries = completion.logProbabilities {
      // The whole answer's, on the last chunk (the model gives them when it ends).
      let result = LogprobsResult(entries)
      final.candidates[0].logprobsResult = try? JSONValue(encoding: result)
      final.candidates[0].avgLogprobs = result.averageLogProbability
    }
    return final
  }

  /// A file's bytes as an `inlineData` part.
  private static func inlineData(_ file: Artifact) throws -> Gemini.Part {
    let bytes = try file.data ?? Data(contentsOf: file.fileURL ?? URL(fileURLWithPath: "/dev/null"))
    return .inlineData(Gemini.Blob(mimeType: file.mimeType, bytes: bytes))
  }

  private func response(text: String, files: [Gemini.Part] = [], toolCalls: [Transcript.ToolCall],
                        finishReason: Gemini.FinishReason?, usage: Usage?) -> GenerateContentResponse {
    let usageMetadata = usage.map {
      UsageMetadata(promptTokenCount: $0.promptTokens,
                    cachedContentTokenCount: $0.cachedPromptTokens > 0 ? $0.cachedPromptTokens : nil,
                    candidatesTokenCount: $0.outputTokens, totalTokenCount: $0.totalTokens)
    }
    var response = GenerateContentResponse.text(text, finishReason: finishReason, usage: usageMetadata,
                                                modelVersion: modelVersion, responseId: responseId)
    guard !toolCalls.isEmpty || !files.isEmpty else { return response }
    var parts = text.isEmpty ? [] : [Gemini.Part.text(text)]
    parts += files
    parts += toolCalls.map { Gemini.Part.functionCall(Gemini.FunctionCall($0)) }
    response.candidates[0].content = Gemini.Content(role: Gemini.Content.modelRole, parts: parts)
    return response
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
