/// One event of a `text/event-stream` (server-sent events), as the HTML standard defines it.
public struct ServerSentEvent: Sendable, Hashable {
  /// The event type (`event:` field), or `nil` for the default type `message`.
  public var event: String?
  /// The data: the `data:` lines joined with line feeds.
  public var data: String
  /// The last event ID (`id:` field) seen so far, or `nil`.
  public var id: String?
  /// The reconnection time the server asked for (`retry:` field), in milliseconds.
  public var retry: Int?

  /// An event from its fields.
  public init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
    self.event = event
    self.data = data
    self.id = id
    self.retry = retry
  }

  /// The event in wire form: one `data:` line per line of ``data``, each line ending in CRLF, and
  /// an empty line (CRLF) ending the event, as the Gemini API writes its streams.
  public var encoded: String {
    var text = ""
    if let id { text += "id: \(id)\r\n" }
    if let event { text += "event: \(event)\r\n" }
    if let retry { text += "retry: \(retry)\r\n" }
    var lines: [Substring] = []
    var start = data.startIndex
    var index = data.startIndex
    while index < data.endIndex {
      let character = data[index]
      if character == "\n" || character == "\r" || character == "\r\n" {
        lines.append(data[start..<index])
        start = data.index(after: index)
      }
      index = data.index(after: index)
    }
    lines.append(data[start...])
    for line in lines { text += "data: \(line)\r\n" }
    return text + "\r\n"
  }
}
