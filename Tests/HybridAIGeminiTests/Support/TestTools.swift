import HybridAI
import Synchronization

/// A tool with JSON arguments that records its calls and answers with a closure.
final class RecordingTool: Tool {
  typealias Arguments = GeneratedContent
  let name: String
  let description: String
  let parameters: GenerationSchema
  let calls = Mutex<[GeneratedContent]>([])
  let answer: @Sendable (GeneratedContent) throws -> ToolOutput

  init(name: String, description: String = "A test tool", parameters: GenerationSchema = .emptyObject,
       answer: @escaping @Sendable (GeneratedContent) throws -> ToolOutput) {
    self.name = name
    self.description = description
    self.parameters = parameters
    self.answer = answer
  }

  func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    calls.withLock { $0.append(arguments) }
    return try answer(arguments)
  }
}

extension GenerationSchema {
  /// An object without properties.
  static let emptyObject = GenerationSchema(jsonSchema: .object([
    "type": .string("object"), "properties": .object([:]), "additionalProperties": .bool(false),
  ]))

  /// `{"city": string, "unit"?: "celsius" | "fahrenheit"}`, in that order.
  static let weather = GenerationSchema.object(properties: [
    .init(name: "city", description: "The city", schema: GenerationSchema(jsonSchema: .object(["type": .string("string")]))),
    .init(name: "unit", schema: .anyOf(choices: ["celsius", "fahrenheit"]), isOptional: true),
  ])
}

extension ToolDefinition {
  static let weather = ToolDefinition(name: "get_weather", description: "The weather in a city", parameters: .weather)
  static let now = ToolDefinition(name: "now", description: "The current date and time", parameters: .emptyObject)
}
