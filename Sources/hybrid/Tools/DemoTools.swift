import HybridAI
import HybridAITools

/// The tools `--tools` gives a session, and how the CLI shows their use.
enum DemoTools {
  static let all: [any Tool] = [CalculatorTool(), CurrentTimeTool(), SpeakTool(), WriteFileTool()]

  /// One line per tool call and output of a response, e.g. `calculator({"a":6,…}) → {"result":42}`.
  static func callLines(_ entries: [Transcript.Entry]) -> [String] {
    var outputs: [String: Transcript.ToolOutput] = [:]
    for case .toolOutput(let output) in entries { outputs[output.callID] = output }
    var lines: [String] = []
    for case .toolCalls(let calls) in entries {
      for call in calls.calls {
        let output = outputs[call.id].map { ($0.isError ? "error: " : "") + Transcript.Entry.toolOutput($0).text } ?? "(no output)"
        lines.append("\(call.toolName)(\(call.arguments.jsonString)) → \(output)")
      }
    }
    return lines
  }
}
