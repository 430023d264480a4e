/// Request bodies for raw HTTP (``TestHTTP``) against the Gemini-compatible API, for what a Gemini
/// client library would hide (status codes, headers, the SSE framing, error envelopes).
enum HTTP {
  /// A `generateContent` body with one user turn, greedy and short.
  static func generateBody(_ prompt: String, maxOutputTokens: Int = 12, extra: [String: Any] = [:]) -> [String: Any] {
    var body: [String: Any] = [
      "contents": [["role": "user", "parts": [["text": prompt]]]],
      "generationConfig": ["temperature": 0, "topK": 1, "maxOutputTokens": maxOutputTokens],
    ]
    for (key, value) in extra { body[key] = value }
    return body
  }
}
