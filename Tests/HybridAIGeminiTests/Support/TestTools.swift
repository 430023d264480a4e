import HybridAI
import HybridAITestSupport

extension GenerationSchema {
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
