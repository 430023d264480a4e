import Foundation
import HybridAI
import HybridAIHTTP

extension OpenAIModel {
  /// Answers the last prompt of `request.transcript` over a streamed `chat/completions`.
  ///
  /// The request carries the transcript, options, tools and response format (see
  /// ``ChatCompletionRequest/init(_:model:)``). Yields the answer's text as it arrives; when the
  /// model calls functions, one ``HybridAI/GenerationEvent/toolCalls(_:)`` with every call of the
  /// answer (the server's ids, or new ones when it sent none), checked against the request's tools;
  /// then one ``HybridAI/GenerationEvent/completed(_:)`` whose ``HybridAI/RawResponse`` has the
  /// server's model name (or ``name``), the usage (cached prompt tokens included when reported),
  /// the finish reason (`length` is ``HybridAI/FinishReason/maxTokens``), client-side timings, and
  /// ``HybridAI/ProviderContent`` with provider `openai`: the assistant message.
  ///
  /// Fails with ``HybridAI/GenerationError/unknownTool(name:arguments:)`` for a call of a function
  /// the request does not offer; ``HybridAI/GenerationError/invalidToolArguments(toolName:arguments:reason:)``
  /// for arguments that are not a JSON object following the tool's schema (or were cut off by the
  /// token limit); with a response format, ``HybridAI/GenerationError/invalidStructuredOutput(rawContent:reason:)``
  /// for an answer that is not JSON following the schema; ``OpenAIError/contentFiltered(partialText:)``
  /// when the server's filter stopped the answer; ``OpenAIError/refused(explanation:)`` when the model refused.
  ///
  /// Cancelling the consuming task cancels the HTTP request.
  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    CloudGeneration.stream(logger: logger, service: "OpenAI-compatible") { emit in
      try await answer(request) { emit(.textDelta($0)) }
    }
  }

  private func answer(_ request: GenerationRequest, delta: (String) -> Void) async throws -> CloudGeneration.Answer {
    try request.requireConversation()
    let wire = try ChatCompletionRequest(request, model: name, sending: capabilities.inputModalities)
    let clock = ContinuousClock()
    let start = clock.now
    var firstToken: ContinuousClock.Instant?
    var accumulator = ChatCompletionAccumulator()
    for try await chunk in client.streamChatCompletion(wire) {
      let added = accumulator.add(chunk)
      if firstToken == nil, !added.isEmpty || !accumulator.toolCalls.isEmpty { firstToken = clock.now }
      if !added.isEmpty { delta(added) }
    }
    try Task.checkCancellation()
    let end = clock.now
    if accumulator.finishReason == "content_filter" {
      throw OpenAIError.contentFiltered(partialText: accumulator.text)
    }
    if !accumulator.refusal.isEmpty { throw OpenAIError.refused(explanation: accumulator.refusal) }
    let finishReason = Self.finishReason(accumulator.finishReason)
    let toolCalls = try checkedToolCalls(accumulator.toolCalls, for: request, finishReason: finishReason)
    if toolCalls.isEmpty {
      try request.checkStructuredAnswer(accumulator.text, reachedTokenLimit: finishReason == .maxTokens)
    }
    if accumulator.usage == nil {
      logger.debug("the server reported no usage (stream_options.include_usage ignored)")
    }
    let details = accumulator.usage?.completionTokensDetails
    let accepted = details?.acceptedPredictionTokens ?? 0
    let usage = Usage(promptTokens: accumulator.usage?.promptTokens ?? 0,
                      cachedPromptTokens: accumulator.usage?.promptTokensDetails?.cachedTokens ?? 0,
                      outputTokens: accumulator.usage?.completionTokens ?? 0,
                      reasoningTokens: details?.reasoningTokens ?? 0,
                      draftTokens: accepted + (details?.rejectedPredictionTokens ?? 0), acceptedDraftTokens: accepted,
                      audioPromptTokens: accumulator.usage?.promptTokensDetails?.audioTokens ?? 0)
    let timings = GenerationTimings(
      promptEvaluation: (firstToken ?? end) - start, timeToFirstToken: firstToken.map { $0 - start },
      generation: firstToken.map { end - $0 } ?? .zero, evaluatedPromptTokens: usage.evaluatedPromptTokens,
      generatedTokens: usage.outputTokens)
    let message = ChatMessage(role: "assistant", content: accumulator.text.isEmpty && !toolCalls.isEmpty ? nil : .text(accumulator.text),
                              toolCalls: toolCalls.isEmpty ? nil : toolCalls.map(ChatToolCall.init))
    let modelVersion = accumulator.model ?? name
    logger.debug("OpenAI-compatible server answered", metadata: [
      "modelVersion": "\(modelVersion)", "finishReason": "\(accumulator.finishReason ?? "none")",
      "promptTokens": "\(usage.promptTokens)", "outputTokens": "\(usage.outputTokens)", "toolCalls": "\(toolCalls.count)",
    ])
    var raw = RawResponse(
      modelVersion: modelVersion, source: .cloud, usage: usage, finishReason: finishReason, timings: timings,
      providerContent: ProviderContent(provider: OpenAI.providerName, content: (try? JSONValue(encoding: message)) ?? .null))
    raw.logProbabilities = accumulator.logProbabilities.map { ChatLogProbabilities(content: $0).entries }
    return (toolCalls, raw)
  }

  /// HybridAI's finish reason for OpenAI's: `stop` and `tool_calls` end the turn, `length` is the
  /// token limit; anything else is kept by name.
  static func finishReason(_ reason: String?) -> FinishReason {
    switch reason {
    case nil, "stop", "tool_calls", "function_call": .stop
    case "length": .maxTokens
    case let other?: .other(other)
    }
  }

  /// The answer's calls as transcript calls, each checked against the offered tools (see
  /// ``HybridAI/GenerationRequest/offeredTool(calledAs:arguments:)``).
  private func checkedToolCalls(_ calls: [ChatToolCall], for request: GenerationRequest,
                                finishReason: FinishReason) throws -> [Transcript.ToolCall] {
    try calls.map { call in
      let name = call.function.name
      let text = call.function.arguments.trimmingCharacters(in: .whitespacesAndNewlines)
      let arguments: GeneratedContent
      do {
        arguments = try GeneratedContent(json: text.isEmpty ? "{}" : text)
      } catch {
        let cutShort = finishReason == .maxTokens ? " (the answer reached its token limit)" : ""
        logger.warning("a tool call's arguments are not JSON", metadata: ["tool": "\(name)", "arguments": "\(text)"])
        throw GenerationError.invalidToolArguments(toolName: name, arguments: text, reason: "not JSON\(cutShort): \(error)")
      }
      do {
        _ = try request.offeredTool(calledAs: name, arguments: arguments.jsonValue)
      } catch {
        logger.warning("the server called a tool it was not offered, or with invalid arguments",
                       metadata: ["tool": "\(name)", "error": "\(error)"])
        throw error
      }
      return call.id.isEmpty ? Transcript.ToolCall(toolName: name, arguments: arguments)
                             : Transcript.ToolCall(id: call.id, toolName: name, arguments: arguments)
    }
  }
}
