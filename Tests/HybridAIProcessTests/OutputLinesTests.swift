@testable import HybridAIProcess
import Testing

/// `OutputLines`: a child's standard output into lines, buffer by buffer.
@Suite struct OutputLinesTests {
  func lines(_ chunks: [String], limit: Int = 100) throws -> [String] {
    var splitter = OutputLines(limit: limit)
    var lines: [String] = []
    for chunk in chunks {
      lines += try Array(chunk.utf8).withUnsafeBytes { bytes throws(OutputLines.LineTooLong) in try splitter.append(bytes) }
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

  @Test("a line of exactly the limit passes (its CR too); one byte more is refused, the lines before it kept")
  func limit() throws {
    #expect(try lines([String(repeating: "x", count: 8) + "\r\n"], limit: 8) == [String(repeating: "x", count: 8)])
    var splitter = OutputLines(limit: 8)
    let first = try Array("ok\n12345".utf8).withUnsafeBytes { bytes throws(OutputLines.LineTooLong) in try splitter.append(bytes) }
    #expect(first == ["ok"])
    #expect(throws: OutputLines.LineTooLong.self) {
      _ = try Array("6789\n".utf8).withUnsafeBytes { bytes throws(OutputLines.LineTooLong) in try splitter.append(bytes) }
    }
  }
}
