import Foundation
import HybridAITestSupport

/// What a Gemini-compatible test server answers when it plays an image-editing model: a line of
/// text, then the files of the request's last user turn sent back as `inlineData` parts, in a
/// stream (`streamGenerateContent?alt=sse`) that ends with `STOP`.
///
/// ```swift
/// let server = try await TestHTTPServer.start { request, _ in GeminiEchoReply.reply(to: request) }
/// ```
public enum GeminiEchoReply {
  /// The text before the files.
  public static let text = "Here it is."

  /// The reply to `request`; a request without files gets the text alone.
  public static func reply(to request: TestHTTPServer.Request) -> TestHTTPServer.Reply {
    let files = lastUserFiles(of: request.body)
    var events = [#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "\#(text)"}]}}]}"#]
    for file in files {
      events.append(#"{"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {"mimeType": "\#(file.mimeType)", "data": "\#(file.data)"}}]}}]}"#)
    }
    events.append(#"{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 4, "totalTokenCount": 14}, "modelVersion": "echo-image-001"}"#)
    return .sse(events)
  }

  /// The `inlineData` parts (MIME type, base64 data) of the last `user` content of a request body.
  public static func lastUserFiles(of body: Data) -> [(mimeType: String, data: String)] {
    guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
          let contents = json["contents"] as? [[String: Any]],
          let user = contents.last(where: { ($0["role"] as? String) == "user" }),
          let parts = user["parts"] as? [[String: Any]] else { return [] }
    return parts.compactMap { part in
      guard let blob = part["inlineData"] as? [String: Any], let mimeType = blob["mimeType"] as? String,
            let data = blob["data"] as? String else { return nil }
      return (mimeType, data)
    }
  }
}
