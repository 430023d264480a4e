import Foundation
import HybridAIServing
import NIOCore

/// How `streamGenerateContent` frames its chunks, as Google's servers do: server-sent events with
/// `alt=sse` (`data: <json>\r\n\r\n` each), else one JSON array whose elements are written as they
/// come (`[<json>`, `,\r\n<json>` …, `]`), which a client reads whole or piece by piece.
enum GeminiStreamFraming: Sendable {
  case serverSentEvents
  case jsonArray

  var contentType: String {
    switch self {
    case .serverSentEvents: "text/event-stream"
    case .jsonArray: "application/json; charset=UTF-8"
    }
  }

  /// The bytes of one chunk (`first`: nothing was written before it).
  func chunk(_ value: some Encodable, first: Bool) throws -> ByteBuffer {
    switch self {
    case .serverSentEvents:
      return try ServerSentEvents.event(value)
    case .jsonArray:
      var buffer = ByteBuffer(string: first ? "[" : ",\r\n")
      buffer.writeBytes(try JSONEncoder.api.encode(value))
      return buffer
    }
  }

  /// What closes the stream after `count` chunks (`nil`: nothing).
  func end(afterChunks count: Int) -> ByteBuffer? {
    switch self {
    case .serverSentEvents: nil
    case .jsonArray: ByteBuffer(string: count == 0 ? "[]" : "]")
    }
  }
}
