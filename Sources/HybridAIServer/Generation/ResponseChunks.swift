import Foundation
import HybridAI
import HybridAIGeminiWire

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
  /// asked for, are the candidate's `logprobsResult` and `avgLogprobs`: those of the text's tokens
  /// (`textBytes` of it, the whole `text` when `nil`) when the answer called tools.
  func final(text: String, files: [Artifact] = [], toolCalls: [Transcript.ToolCall] = [],
             completion: RawResponse, textBytes: Int? = nil) throws -> GenerateContentResponse {
    let reason = toolCalls.isEmpty ? Self.wireFinishReason(completion.finishReason) : .stop
    var final = response(text: text, files: try files.map(Self.inlineData), toolCalls: toolCalls, finishReason: reason,
                         usage: completion.usage)
    if let all = completion.logProbabilities {
      // The whole answer's, on the last chunk (the model gives them when it ends).
      let entries = toolCalls.isEmpty ? all : all.startingWithin(textBytes ?? text.utf8.count)
      let result = LogprobsResult(entries)
      final.candidates[0].logprobsResult = try? JSONValue(encoding: result)
      final.candidates[0].avgLogprobs = result.averageLogProbability
    }
    return final
  }

  /// A chunk with the usage of the whole answer and no candidate: the last of a stream of several
  /// candidates.
  func usage(_ usage: Usage) -> GenerateContentResponse {
    var response = GenerateContentResponse.text("", usage: Self.usageMetadata(usage), modelVersion: modelVersion, responseId: responseId)
    response.candidates = []
    return response
  }

  /// Several candidates' last chunks (or whole answers) as one response: candidate `i` with
  /// `index` `i`, the usage counting the prompt once.
  func combined(_ finals: [GenerateContentResponse], completions: [RawResponse]) -> GenerateContentResponse {
    guard var combined = finals.first, finals.count > 1 else { return finals.first ?? usage(Usage(answersTo: completions)) }
    combined.candidates = finals.enumerated().compactMap { index, final in
      var candidate = final.candidates.first
      candidate?.index = index
      return candidate
    }
    combined.usageMetadata = Self.usageMetadata(Usage(answersTo: completions))
    return combined
  }

  static func usageMetadata(_ usage: Usage) -> UsageMetadata {
    UsageMetadata(usage)
  }

  /// A file's bytes as an `inlineData` part.
  private static func inlineData(_ file: Artifact) throws -> Gemini.Part {
    let bytes = try file.data ?? Data(contentsOf: file.fileURL ?? URL(fileURLWithPath: "/dev/null"))
    return .inlineData(Gemini.Blob(mimeType: file.mimeType, bytes: bytes))
  }

  private func response(text: String, files: [Gemini.Part] = [], toolCalls: [Transcript.ToolCall],
                        finishReason: Gemini.FinishReason?, usage: Usage?) -> GenerateContentResponse {
    let usageMetadata = usage.map(Self.usageMetadata)
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
