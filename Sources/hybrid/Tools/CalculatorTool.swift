import HybridAI

/// A demo tool for `hybrid chat --tools`: one arithmetic operation on two numbers.
struct CalculatorTool: Tool {
  let name = "calculator"
  let description = "Computes a + b, a - b, a * b or a / b exactly. Use it for arithmetic."

  @Generable
  enum Operation {
    case add, subtract, multiply, divide
  }

  @Generable
  struct Arguments {
    @Guide(description: "The first number")
    var a: Double
    @Guide(description: "The operation")
    var operation: CalculatorTool.Operation
    @Guide(description: "The second number")
    var b: Double
  }

  func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    let result: Double
    switch arguments.operation {
    case .add: result = arguments.a + arguments.b
    case .subtract: result = arguments.a - arguments.b
    case .multiply: result = arguments.a * arguments.b
    case .divide:
      guard arguments.b != 0 else { throw DemoToolError("division by zero") }
      result = arguments.a / arguments.b
    }
    return ToolOutput(GeneratedContent(properties: ["result": result]))
  }
}
