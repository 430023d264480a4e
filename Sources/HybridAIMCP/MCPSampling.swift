import Foundation
import HybridAI
import MCP

/// Answers a server's `sampling/createMessage` with a model of the app's (a hybrid one answers on
/// device first): the server's system prompt as instructions, its messages as the conversation
/// (text parts; other parts are named, not sent), its temperature, stop sequences and token limit
/// (capped by ``maximumTokens``).
struct MCPSampling: Sendable {
  let model: any LanguageModel
  /// The most tokens an answer may have, whatever the server asks.
  let maximumTokens: Int

  func answer(_ parameters: CreateSamplingMessage.Parameters) async throws -> CreateSamplingMessage.Result {
    var entries: [Transcript.Entry] = []
    if let system = parameters.systemPrompt, !system.isEmpty { entries.append(.instructions(.init(text: system))) }
    for message in parameters.messages {
      let text = message.content.asArray.map { block -> String in
        switch block {
        case .text(let text): text
        case .image(_, let mimeType), .audio(_, let mimeType): "[\(mimeType) content]"
        case .toolUse(let use): "[tool call \(use.name)]"
        case .toolResult: "[tool result]"
        }
      }.joined(separator: "\n")
      switch message.role {
      case .user: entries.append(.prompt(.init(text: text)))
      case .assistant: entries.append(.response(.init(segments: [.text(Transcript.TextSegment(content: text))])))
      }
    }
    var options = GenerationOptions(temperature: parameters.temperature,
                                    maximumResponseTokens: min(parameters.maxTokens, maximumTokens))
    options.stopSequences = parameters.stopSequences ?? []
    var text = ""
    var completion: RawResponse?
    for try await event in model.generate(GenerationRequest(transcript: Transcript(entries: entries), options: options)) {
      switch event {
      case .textDelta(let delta): text += delta
      case .completed(let raw): completion = raw
      default: break
      }
    }
    let stopReason: Sampling.StopReason = completion?.finishReason == .maxTokens ? .maxTokens : .endTurn
    return CreateSamplingMessage.Result(model: completion?.modelVersion ?? model.modelIdentifier, stopReason: stopReason,
                                        role: .assistant, content: .single(.text(text)))
  }
}
