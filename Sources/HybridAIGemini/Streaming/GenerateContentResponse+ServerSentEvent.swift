import Foundation
import HybridAIHTTP

extension GenerateContentResponse {
  /// This response as one server-sent event, the way `streamGenerateContent?alt=sse` sends each
  /// chunk: `data: <compact JSON>\r\n\r\n`.
  public func serverSentEvent() throws -> String {
    let json = String(decoding: try Gemini.JSON.encode(self), as: UTF8.self)
    return ServerSentEvent(data: json).encoded
  }
}
