import Foundation
import HybridAI
import MCP

/// A `tools/call` result as a ``HybridAI/ToolOutput``.
enum MCPToolResult {
  /// Text parts joined for the model (structured content when the text is its JSON or absent); images,
  /// audio and binary resources as artifacts; resource links and text resources as lines naming
  /// them. `isError` throws ``MCPError/toolFailed(tool:message:)`` with the text.
  static func output(of result: CallTool.Result, tool: String) throws -> ToolOutput {
    var lines: [String] = []
    var artifacts: [Artifact] = []
    func addFile(base64: String, mimeType: String, name: String?) {
      guard let data = Data(base64Encoded: base64) else {
        lines.append("[\(mimeType) content that is not valid base64]")
        return
      }
      let fileExtension = MediaType.named(mimeType)?.fileExtension ?? "bin"
      artifacts.append(Artifact(data: data, mimeType: mimeType, name: name ?? "\(tool)-\(artifacts.count + 1).\(fileExtension)"))
    }
    for content in result.content {
      switch content {
      case .text(let text, _, _):
        lines.append(text)
      case .image(let data, let mimeType, _, _), .audio(let data, let mimeType, _, _):
        addFile(base64: data, mimeType: mimeType, name: nil)
      case .resource(let resource, _, _):
        if let text = resource.text {
          lines.append("\(resource.uri):\n\(text)")
        } else if let blob = resource.blob {
          let name = URL(string: resource.uri)?.lastPathComponent
          addFile(base64: blob, mimeType: resource.mimeType ?? "application/octet-stream", name: name?.isEmpty == false ? name : nil)
        }
      case .resourceLink(let uri, let name, _, let description, _, _):
        lines.append("\(name): \(uri)" + (description.map { " (\($0))" } ?? ""))
      }
    }
    let text = lines.joined(separator: "\n")
    if result.isError == true { throw MCPError.toolFailed(tool: tool, message: text) }
    // Structured content stays structured when there is no text, or the text is its JSON (as the
    // specification asks servers to send it); text written for the model wins otherwise.
    if let structured = result.structuredContent.map(MCPValueConversion.jsonValue),
       text.isEmpty || (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) == structured {
      var output = ToolOutput(GeneratedContent(structured))
      output.artifacts = artifacts
      return output
    }
    return ToolOutput(text, artifacts: artifacts)
  }
}
