import Foundation

/// Google's error envelope, `{"error": {"code": 404, "message": "…", "status": "NOT_FOUND"}}`, as
/// the registry sends it.
struct GoogleErrorBody: Decodable, Sendable, Hashable {
  struct Inner: Decodable, Sendable, Hashable {
    var code: Int?
    var message: String?
    var status: String?
  }

  var error: Inner

  /// The envelope in `data`, or `nil`.
  static func parse(_ data: Data) -> Inner? {
    try? JSONDecoder().decode(GoogleErrorBody.self, from: data).error
  }

  /// The message to show for an error answer: the envelope's message, else the start of the body.
  static func message(from data: Data) -> String {
    if let inner = parse(data), let message = inner.message { return message }
    return String(decoding: data.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
