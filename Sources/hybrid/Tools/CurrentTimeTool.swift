import Foundation
import HybridAI

/// A demo tool for `hybrid chat --tools`: the current date and time in a time zone.
struct CurrentTimeTool: Tool {
  let name = "current_time"
  let description = "The current date and time. Use it for questions about the time or date."

  @Generable
  struct Arguments {
    @Guide(description: "An IANA time zone such as Europe/Paris, or UTC")
    var timeZone: String?
  }

  func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    let zoneName = arguments.timeZone ?? "UTC"
    guard let zone = TimeZone(identifier: zoneName) else {
      throw DemoToolError("unknown time zone \(zoneName); use an IANA name such as Europe/Paris")
    }
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = zone
    formatter.formatOptions = [.withInternetDateTime]
    return ToolOutput("\(formatter.string(from: Date())) (\(zone.identifier))")
  }
}

/// A demo tool's error, worded for the model.
struct DemoToolError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
