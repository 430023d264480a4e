import HybridAI

extension GeminiModel {
  /// The tool calls of an answer's `functionCall` parts, in order, each checked against the
  /// request's tools (see ``HybridAI/GenerationRequest/offeredTool(calledAs:arguments:)``).
  func checkedToolCalls(in content: Gemini.Content?, for request: GenerationRequest) throws -> [Transcript.ToolCall] {
    var calls: [Transcript.ToolCall] = []
    for part in content?.parts ?? [] {
      guard case .functionCall(let call) = part.data else { continue }
      do {
        let tool = try request.offeredTool(calledAs: call.name, arguments: call.args ?? .object([:]))
        calls.append(Transcript.ToolCall(gemini: call, parameters: tool.parameters))
      } catch {
        logger.warning("Gemini called a tool it was not offered, or with invalid arguments",
                       metadata: ["tool": "\(call.name)", "error": "\(error)"])
        throw error
      }
    }
    return calls
  }
}
