import Foundation
import HybridAI
import HybridAITools
import Testing

@Suite("WriteFileTool")
struct WriteFileToolTests {
  @Test("a Swift file becomes a text/x-swift artifact")
  func swiftFile() async throws {
    let output = try await WriteFileTool().call(arguments: .init(fileName: "hello.swift", content: "print(\"hi\")\n"),
                                                context: ToolTestSupport.context())
    let artifact = try #require(output.artifacts.first)
    #expect(artifact.name == "hello.swift")
    #expect(artifact.mimeType == "text/x-swift")
    #expect(artifact.data == Data("print(\"hi\")\n".utf8))
    #expect(output.description == "Created hello.swift (12 bytes, text/x-swift)")
  }

  @Test("path tricks and NULs are sanitised", arguments: [
    ("../../etc/passwd", "passwd"), ("/etc/shadow", "shadow"), ("re\u{0}port.md", "report.md"),
    ("..", "artifact"), ("..\\..\\win.ini", "win.ini"), (".bashrc", "bashrc"),
  ])
  func sanitised(name: String, expected: String) async throws {
    let output = try await WriteFileTool().call(arguments: .init(fileName: name, content: "x"),
                                                context: ToolTestSupport.context())
    let artifact = try #require(output.artifacts.first)
    #expect(artifact.name == expected)
    #expect(!artifact.name.contains("/") && !artifact.name.contains("\0"))
  }

  @Test("oversize content is refused with a typed error")
  func oversize() async throws {
    let tool = WriteFileTool(maximumByteCount: 8)
    #expect(throws: WriteFileToolError.contentTooLarge(byteCount: 9, limit: 8)) {
      try tool.makeArtifact(.init(fileName: "big.txt", content: "123456789"))
    }
    #expect(try tool.makeArtifact(.init(fileName: "ok.txt", content: "12345678")).artifacts.count == 1)
  }

  @Test("MIME types come from the extension")
  func mimeTypes() {
    #expect(TextFileType.mimeType(forFileName: "a.JSON") == "application/json")
    #expect(TextFileType.mimeType(forFileName: "README.md") == "text/markdown")
    #expect(TextFileType.mimeType(forFileName: "notes") == "text/plain")
    #expect(TextFileType.mimeType(forFileName: "x.unknown") == "text/plain")
  }
}
