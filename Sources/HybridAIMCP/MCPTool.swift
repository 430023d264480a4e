import Foundation
import HybridAI
import MCP

/// A tool of an MCP server, offered to a ``HybridAI/GenerativeModelSession`` like any tool: its input
/// schema is the tool's parameters (so an on-device model's arguments are constrained by its
/// grammar), a call goes to the server, and the result comes back as the session knows results —
/// text (or structured content) for the model, images and audio as artifacts, `isError` as a
/// failed call.
public struct MCPTool: HybridAI.Tool {
  public typealias Arguments = GeneratedContent

  /// The name offered to the model (the server's name for it, prefixed with the server's when two
  /// servers offer the same name).
  public let name: String
  public let description: String
  public let parameters: GenerationSchema
  /// The tool's name on its server.
  public let serverToolName: String
  let connection: MCPServerConnection

  /// The name of the server that offers it (its configuration's).
  public var serverName: String { connection.name }

  init(_ tool: MCP.Tool, offeredAs name: String, connection: MCPServerConnection) {
    self.name = name
    self.description = tool.description ?? tool.title ?? tool.name
    self.parameters = GenerationSchema(jsonSchema: MCPValueConversion.jsonValue(tool.inputSchema))
    self.serverToolName = tool.name
    self.connection = connection
  }

  public func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    guard case .object(let fields) = arguments.jsonValue else {
      throw GenerationError.invalidToolArguments(toolName: name, arguments: arguments.jsonString, reason: "not a JSON object")
    }
    let result = try await connection.callTool(serverToolName, arguments: fields.mapValues(MCPValueConversion.value)) {
      fraction, message in context.report(progress: fraction, message)
    }
    return try MCPToolResult.output(of: result, tool: name)
  }
}
