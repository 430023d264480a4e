import Foundation
import HybridAI
import Logging

/// Saves a text or code file the model wrote, as an artifact.
///
/// The proposed name is made safe with `ArtifactName.sanitized(_:)` (directories, `..`, NULs and
/// control characters are dropped), so `../../etc/passwd` becomes `passwd`; nothing is written
/// outside the session's artifact store. The MIME type comes from the extension
/// (``TextFileType``), and content over ``maximumByteCount`` is refused.
///
/// ```swift
/// let output = try await WriteFileTool().call(
///   arguments: .init(fileName: "hello.swift", content: "print(\"hi\")"), context: context)
/// output.artifacts[0]   // hello.swift, text/x-swift
/// ```
public struct WriteFileTool: Tool {
  public let name = "write_file"
  public let description = "Saves a text or code file for the user, e.g. a script, a document or data."

  /// The file to write.
  @Generable
  public struct Arguments: Sendable {
    @Guide(description: "The file name with its extension, e.g. report.md or main.swift")
    public var fileName: String
    @Guide(description: "The complete text of the file")
    public var content: String

    public init(fileName: String, content: String) {
      self.fileName = fileName
      self.content = content
    }
  }

  /// The most UTF-8 bytes a file may have.
  public var maximumByteCount: Int
  private let logger: Logger

  /// - Parameters:
  ///   - maximumByteCount: larger content fails with ``WriteFileToolError/contentTooLarge(byteCount:limit:)``.
  ///   - logger: where the tool logs (label `HybridAI.tools.writeFile` by default).
  public init(maximumByteCount: Int = 1 << 20, logger: Logger = Logger(label: "HybridAI.tools.writeFile")) {
    self.maximumByteCount = maximumByteCount
    self.logger = logger
  }

  public func call(arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
    try makeArtifact(arguments, context: context)
  }

  /// The artifact for `arguments`, without the `async` of ``call(arguments:context:)``.
  ///
  /// - Throws: ``WriteFileToolError``.
  public func makeArtifact(_ arguments: Arguments, context: ToolContext? = nil) throws(WriteFileToolError) -> ToolOutput {
    let data = Data(arguments.content.utf8)
    guard data.count <= maximumByteCount else {
      logger.warning("refused an oversize file", metadata: ["bytes": "\(data.count)", "limit": "\(maximumByteCount)"])
      throw .contentTooLarge(byteCount: data.count, limit: maximumByteCount)
    }
    let fileName = ArtifactName.sanitized(arguments.fileName)
    let mimeType = TextFileType.mimeType(forFileName: fileName)
    let artifact = Artifact(data: data, mimeType: mimeType, name: fileName)
    context?.report(progress: 1, "saved \(fileName)")
    logger.info("wrote a file", metadata: ["name": "\(fileName)", "bytes": "\(data.count)", "type": "\(mimeType)"])
    return ToolOutput("Created \(fileName) (\(data.count) bytes, \(mimeType))", artifacts: [artifact])
  }
}
