import Foundation
import HybridAIServing
import NIOCore

/// Server-sent events as the Gemini API sends them: `data: <json>` and a blank line.
enum ServerSentEvents {
  static func event(_ value: some Encodable) throws -> ByteBuffer {
    var buffer = ByteBuffer(string: "data: ")
    buffer.writeBytes(try JSONEncoder.api.encode(value))
    buffer.writeString("\r\n\r\n")
    return buffer
  }
}
