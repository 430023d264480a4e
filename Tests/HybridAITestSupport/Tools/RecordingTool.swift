import Foundation
import HybridAI
import Synchronization

/// A tool with JSON arguments that records its calls and answers with a closure: the tool double
/// of the test suites (a tool that paints, speaks or fails is this with another answer).
public final class RecordingTool: Tool {
  public typealias Arguments = GeneratedContent
  public let name: String
  public let description: String
  public let parameters: GenerationSchema
  private let recordedCalls = Mutex<[GeneratedContent]>([])
  private let answer: @Sendable (GeneratedContent, ToolContext) async throws -> ToolOutput

  /// A tool named `name` that answers each call with `answer`.
  public convenience init(name: String, description: String = "A test tool",
              parameters: GenerationSchema = .emptyObject,
              answer: @escaping @Sendable (GeneratedContent) throws -> ToolOutput) {
    self.init(name: name, description: description, parameters: parameters) { arguments, _ in try answer(arguments) }
  }

  /// A tool named `name` that answers each call with `answer`, which also gets the call's context
  /// (to report progress or store artifacts).
  public init(name: String, description: String = "A test tool",
              parameters: GenerationSchema = .emptyObject,
              answer: @escaping @Sendable (GeneratedContent, ToolContext) async throws -> ToolOutput) {
    self.name = name
    self.description = description
    self.parameters = parameters
    self.answer = answer
  }

  /// The arguments of every call so far, in order.
  public var calls: [GeneratedContent] { recordedCalls.withLock { $0 } }

  public func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    recordedCalls.withLock { $0.append(arguments) }
    return try await answer(arguments, context)
  }
}

extension RecordingTool {
  /// A `paint` tool that answers "Painted." with one PNG artifact holding `picture`.
  public static func painter(returning picture: Data) -> RecordingTool {
    RecordingTool(name: "paint", description: "Paints a picture for the user.", parameters: .emptyObject) { _ in
      ToolOutput("Painted.", artifacts: [Artifact(data: picture, mimeType: "image/png", name: "picture.png")])
    }
  }
}

extension GenerationSchema {
  /// An object without properties: `{"type": "object", "properties": {}, "additionalProperties": false}`.
  public static let emptyObject = GenerationSchema(jsonSchema: .object([
    "type": .string("object"), "properties": .object([:]), "additionalProperties": .bool(false),
  ]))
}
