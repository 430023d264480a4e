import Foundation
import HybridAIHTTP
import HybridAIServing
import NIOCore

/// Server-sent events as the Gemini and OpenAI APIs send them: `data: <json>` and a blank line —
/// `\r\n\r\n` after each event as Google's servers end them, `\n\n` as OpenAI's do (some OpenAI
/// clients split the stream on `\n\n` only).
enum ServerSentEvents {
  /// Whose line ends the events use.
  enum Style {
    case gemini, openAI

    var eventEnd: String {
      switch self {
      case .gemini: "\r\n\r\n"
      case .openAI: "\n\n"
      }
    }
  }

  static func event(_ value: some Encodable, style: Style = .gemini) throws -> ByteBuffer {
    var buffer = ByteBuffer(string: "data: ")
    buffer.writeBytes(try JSONEncoder.api.encode(value))
    buffer.writeString(style.eventEnd)
    return buffer
  }

  /// The OpenAI API's end of stream: `data: [DONE]`.
  static var done: ByteBuffer { ByteBuffer(string: "data: [DONE]" + Style.openAI.eventEnd) }
}
