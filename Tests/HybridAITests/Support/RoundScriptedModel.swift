import HybridAI
import Synchronization

/// A model whose answers are scripted per round of the tool loop: each round either calls tools
/// or answers with text. It records the requests it got (transcripts, tools, formats).
final class RoundScriptedModel: LanguageModel {
  enum Round: Sendable {
    case text(String)
    case toolCalls([Transcript.ToolCall])
  }

  let modelIdentifier = "round-scripted"
  let source = ModelSource.cloud
  let availability = ModelAvailability.available
  private let rounds: [Round]
  private let cycles: Bool
  let requests = Mutex<[GenerationRequest]>([])

  /// Answers with `rounds` in order; then the last one repeats, or with `cycling` all start over.
  init(_ rounds: [Round], cycling: Bool = false) {
    self.rounds = rounds
    self.cycles = cycling
  }

  func supports(_ request: GenerationRequest) async -> RequestSupport { .supported }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let index = requests.withLock { requests in
      requests.append(request)
      return requests.count - 1
    }
    let round = rounds[cycles ? index % rounds.count : min(index, rounds.count - 1)]
    return AsyncThrowingStream { continuation in
      switch round {
      case .text(let text): continuation.yield(.textDelta(text))
      case .toolCalls(let calls): continuation.yield(.toolCalls(calls))
      }
      continuation.yield(.completed(RawResponse(
        modelVersion: "round-scripted-1", source: .cloud, usage: Usage(promptTokens: 10, outputTokens: 5), finishReason: .stop,
        providerContent: ProviderContent(provider: "test", content: ["round": .number(Double(index))]))))
      continuation.finish()
    }
  }
}

/// A tool with JSON arguments that records its calls and answers with a closure.
final class RecordingTool: Tool {
  typealias Arguments = GeneratedContent
  let name: String
  let description = "A test tool"
  let parameters: GenerationSchema
  let calls = Mutex<[GeneratedContent]>([])
  let answer: @Sendable (GeneratedContent) throws -> ToolOutput

  init(name: String, parameters: GenerationSchema = GenerationSchema(jsonSchema: ["type": "object"]),
       answer: @escaping @Sendable (GeneratedContent) throws -> ToolOutput) {
    self.name = name
    self.parameters = parameters
    self.answer = answer
  }

  func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    calls.withLock { $0.append(arguments) }
    return try answer(arguments)
  }
}
