import HybridAI

/// A tool with JSON arguments whose answer sees the call's ``ToolContext`` (to report progress).
struct ContextTool: Tool {
  typealias Arguments = GeneratedContent
  let name: String
  let description = "A test tool that reports progress"
  let parameters = GenerationSchema(jsonSchema: ["type": "object"])
  let answer: @Sendable (GeneratedContent, ToolContext) async throws -> ToolOutput

  func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    try await answer(arguments, context)
  }
}
