@testable import HybridAIProcess
import Testing

/// `OutputLines`: a child's standard output into lines, buffer by buffer.
@Suite struct OutputLinesTests {
  func feed(_ splitter: inout OutputLines, _ text: String, _ line: (String) -> Void) throws {
    try Array(text.utf8).withUnsafeBytes { bytes in try splitter.append(bytes, line) }
  }

  func lines(_ chunks: [String], limit: Int = 100) throws -> [String] {
    var splitter = OutputLines(limit: limit)
    var lines: [String] = []
    for chunk in chunks {
      try feed(&splitter, chunk) { lines.append($0) }
    }
    if let last = splitter.finish() { lines.append(last) }
    return lines
  }

  @Test("lines split anywhere, LF and CRLF, empty lines kept, the last line without a break")
  func splitsLines() throws {
    #expect(try lines(["one\ntw", "o\r", "\n\nthr", "ee"]) == ["one", "two", "", "three"])
    #expect(try lines(["a\r\nb\n"]) == ["a", "b"])
    #expect(try lines([""]) == [])
  }

  @Test("a line of exactly the limit passes (its CR too); one byte more is refused, the lines before it handed on first")
  func limit() throws {
    #expect(try lines([String(repeating: "x", count: 8) + "\r\n"], limit: 8) == [String(repeating: "x", count: 8)])
    var splitter = OutputLines(limit: 8)
    var handed: [String] = []
    #expect(throws: OutputLines.LineTooLong.self, "a line of 9 in the same buffer as one that fits") {
      try feed(&splitter, "ok\n123456789\n") { handed.append($0) }
    }
    #expect(handed == ["ok"])
  }
}
