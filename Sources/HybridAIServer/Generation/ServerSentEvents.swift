import Foundation
import HybridAIHTTP
import HybridAIServing
import NIOCore

/// Server-sent events as the Gemini and OpenAI APIs send them: `data: <json>` and a blank line.
enum ServerSentEvents {
  static func event(_ value: some Encodable) throws -> ByteBuffer {
    var buffer = ByteBuffer(string: "data: ")
    buffer.writeBytes(try JSONEncoder.api.encode(value))
    buffer.writeString("\r\n\r\n")
    return buffer
  }

  /// The OpenAI API's end of stream: `data: [DONE]`.
  static var done: ByteBuffer { ByteBuffer(string: "data: [DONE]\r\n\r\n") }
}
