/// An incremental parser of a `text/event-stream`, fed with bytes as they arrive.
///
/// It follows the HTML standard's event-stream interpretation: lines end in CRLF, LF or CR (a CR
/// at the end of one chunk and an LF at the start of the next count as one line ending); lines
/// starting with `:` are comments; `data:` lines of one event are joined with line feeds; an empty
/// line dispatches the event; a leading byte-order mark is skipped. Chunks may split an event, a
/// line or a UTF-8 sequence anywhere.
///
/// Lines that are not a field of an event (`data`, `event`, `id`, `retry`) are ignored as the
/// standard says, but kept in ``strayText``: an API that breaks off a stream with a plain JSON
/// error body, or a proxy's error page, must not pass for a complete stream.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///   for event in parser.parse(chunk) { handle(event.data) }
/// }
/// if let last = parser.finish() { handle(last.data) }
/// ```
public struct ServerSentEventParser: Sendable {
  private var line: [UInt8] = []
  private var lastWasCR = false
  private var atStreamStart = true
  private var dataLines: [String] = []
  private var hasData = false
  private var eventType: String?
  private var lastEventID: String?
  private var retry: Int?
  private var stray: [UInt8] = []

  /// The most bytes of stray lines kept.
  public static let strayTextLimit = 64 << 10

  public init() {}

  /// The lines so far that were not a field of an event, joined with line feeds (the first
  /// ``strayTextLimit`` bytes); `nil` when there were none.
  public var strayText: String? { stray.isEmpty ? nil : String(decoding: stray, as: UTF8.self) }

  /// Parses the next chunk of the stream and returns the events it completes.
  public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for byte in bytes {
      if atStreamStart {
        // Skip a UTF-8 byte-order mark (EF BB BF) at the very start.
        if line.count < 3, byte == [0xEF, 0xBB, 0xBF][line.count] {
          line.append(byte)
          if line.count == 3 {
            line.removeAll()
            atStreamStart = false
          }
          continue
        }
        atStreamStart = false
      }
      switch byte {
      case UInt8(ascii: "\n"):
        if lastWasCR {
          lastWasCR = false  // the LF of a CRLF split across chunks or not: the line already ended
        } else {
          endLine(into: &events)
        }
      case UInt8(ascii: "\r"):
        endLine(into: &events)
        lastWasCR = true
      default:
        lastWasCR = false
        line.append(byte)
      }
    }
    return events
  }

  /// Ends the stream: returns the event still being built, if it has data (a stream that ends
  /// without a final empty line), and resets the parser but for ``strayText``.
  public mutating func finish() -> ServerSentEvent? {
    var events: [ServerSentEvent] = []
    if !line.isEmpty { endLine(into: &events) }
    endLine(into: &events)  // an empty line dispatches whatever is pending
    let stray = self.stray
    self = ServerSentEventParser()
    self.stray = stray
    return events.last
  }

  private mutating func endLine(into events: inout [ServerSentEvent]) {
    defer { line.removeAll(keepingCapacity: true) }
    if line.isEmpty {
      dispatch(into: &events)
      return
    }
    if line.first == UInt8(ascii: ":") { return }  // a comment
    let field: String
    let value: String
    if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
      field = String(decoding: line[..<colon], as: UTF8.self)
      var valueStart = line.index(after: colon)
      if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
      value = String(decoding: line[valueStart...], as: UTF8.self)
    } else {
      field = String(decoding: line, as: UTF8.self)
      value = ""
    }
    switch field {
    case "data":
      dataLines.append(value)
      hasData = true
    case "event":
      eventType = value
    case "id":
      if !value.utf8.contains(0) { lastEventID = value }
    case "retry":
      if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
        retry = Int(value)
      }
    default:
      keepStray()  // not a field of an event: ignored, but kept
    }
  }

  private mutating func keepStray() {
    guard stray.count < Self.strayTextLimit else { return }
    if !stray.isEmpty { stray.append(UInt8(ascii: "\n")) }
    stray.append(contentsOf: line.prefix(Self.strayTextLimit - stray.count))
  }

  private mutating func dispatch(into events: inout [ServerSentEvent]) {
    defer {
      dataLines.removeAll()
      hasData = false
      eventType = nil
    }
    guard hasData else { return }
    events.append(ServerSentEvent(event: eventType.flatMap { $0.isEmpty ? nil : $0 },
                                  data: dataLines.joined(separator: "\n"), id: lastEventID, retry: retry))
  }
}
