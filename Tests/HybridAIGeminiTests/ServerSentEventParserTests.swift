import HybridAIGemini
import HybridAIHTTP
import Testing

@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
  private func parseWhole(_ text: String) -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    var events = parser.parse(Array(text.utf8))
    if let last = parser.finish() { events.append(last) }
    return events
  }

  private func parse(_ chunks: [[UInt8]]) -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for chunk in chunks { events += parser.parse(chunk) }
    if let last = parser.finish() { events.append(last) }
    return events
  }

  @Test("LF, CRLF and CR line endings", arguments: ["\n", "\r\n", "\r"])
  func lineEndings(_ newline: String) {
    let text = "data: one\(newline)\(newline)data: two\(newline)\(newline)"
    #expect(parseWhole(text).map(\.data) == ["one", "two"])
  }

  @Test("mixed line endings in one stream")
  func mixedLineEndings() {
    #expect(parseWhole("data: a\r\n\ndata: b\r\rdata: c\n\r\n").map(\.data) == ["a", "b", "c"])
  }

  @Test("multi-line data is joined with line feeds")
  func multiLineData() {
    let events = parseWhole("data: {\r\ndata:   \"a\": 1\r\ndata:}\r\n\r\n")
    #expect(events.map(\.data) == ["{\n  \"a\": 1\n}"])
  }

  @Test("lines that are not a field of an event are ignored but kept as stray text, split anywhere")
  func strayText() {
    let text = "data: one\r\n\r\n{\n  \"error\": 1\n}\n: a comment\nfoo: bar\n\ndata: two\n\n"
    for size in [1, 3, 7, text.utf8.count] {
      var parser = ServerSentEventParser()
      var events: [ServerSentEvent] = []
      let bytes = Array(text.utf8)
      for start in stride(from: 0, to: bytes.count, by: size) {
        events += parser.parse(bytes[start..<min(start + size, bytes.count)])
      }
      if let last = parser.finish() { events.append(last) }
      #expect(events.map(\.data) == ["one", "two"], "chunks of \(size)")
      #expect(parser.strayText == "{\n  \"error\": 1\n}\nfoo: bar", "chunks of \(size)")
    }
    var clean = ServerSentEventParser()
    _ = clean.parse(Array("data: x\nevent: e\nid: 1\nretry: 5\n: c\n\n".utf8))
    #expect(clean.strayText == nil)
  }

  @Test("stray text is kept up to its limit")
  func strayTextLimit() {
    var parser = ServerSentEventParser()
    let line = String(repeating: "x", count: 1000) + "\n"
    for _ in 0..<100 { _ = parser.parse(Array(line.utf8)) }
    #expect(parser.strayText?.utf8.count == ServerSentEventParser.strayTextLimit)
  }

  @Test("comments, event types, ids and retry")
  func fields() {
    let events = parseWhole(": keep-alive\nevent: update\nid: 7\nretry: 1500\ndata: x\n\n: another comment\ndata: y\n\n")
    #expect(events == [
      ServerSentEvent(event: "update", data: "x", id: "7", retry: 1500),
      ServerSentEvent(event: nil, data: "y", id: "7", retry: 1500),
    ])
  }

  @Test("an event without data is not dispatched; a bare data field is an empty event")
  func emptyEvents() {
    #expect(parseWhole("event: ping\n\ndata\n\n").map(\.data) == [""])
    #expect(parseWhole("\n\n\n").isEmpty)
  }

  @Test("a space after the colon is dropped once; no colon means an empty value")
  func valueSpacing() {
    #expect(parseWhole("data:no space\n\ndata:  two spaces\n\n").map(\.data) == ["no space", " two spaces"])
  }

  @Test("a leading byte-order mark is skipped")
  func byteOrderMark() {
    var parser = ServerSentEventParser()
    let events = parser.parse([0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8))
    #expect(events.map(\.data) == ["x"])
  }

  @Test("the last event is dispatched at the end even without a final empty line")
  func trailingEvent() {
    #expect(parseWhole("data: a\n\ndata: b").map(\.data) == ["a", "b"])
  }

  @Test("a CRLF split between chunks is one line ending")
  func splitCRLF() {
    #expect(parse([Array("data: a\r".utf8), Array("\ndata: b\r\n\r".utf8), Array("\n".utf8)]).map(\.data) == ["a\nb"])
  }

  @Test("splitting the stream at any byte gives the same events")
  func everySplit() {
    let text = "data: {\"text\": \"héllo 🌍\"}\r\n\r\n: comment\r\ndata: line1\r\ndata: line2\r\n\r\nevent: e\ndata: z\n\n"
    let bytes = Array(text.utf8)
    let expected = parse([bytes])
    #expect(expected.map(\.data) == ["{\"text\": \"héllo 🌍\"}", "line1\nline2", "z"])
    for split in 0...bytes.count {
      #expect(parse([Array(bytes[..<split]), Array(bytes[split...])]) == expected, "split at \(split)")
    }
    #expect(parse(bytes.map { [$0] }) == expected, "byte by byte")
  }

  @Test("encoding writes one data line per line, CRLF-terminated, and parses back")
  func encoding() {
    let event = ServerSentEvent(data: "{\n\"a\": 1\r\n}")
    #expect(event.encoded == "data: {\r\ndata: \"a\": 1\r\ndata: }\r\n\r\n")
    #expect(parseWhole(event.encoded).map(\.data) == ["{\n\"a\": 1\n}"])
  }
}
