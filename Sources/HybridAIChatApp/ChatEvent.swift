import Foundation
import HybridAI

/// One server-sent event of an answer in the web chat (`event:` is ``name``, `data:` the JSON of
/// the payload). In order: `fallback` (when the preferred model did not answer), `text` deltas,
/// tool events (`toolStarted`, `toolProgress`, `artifact`, `toolFinished`), `artifact`s the model
/// made, then `usage` and `done` — or `error`, after which nothing follows.
public enum ChatEvent: Sendable, Equatable {
  /// More of the answer's text.
  case text(String)
  /// A tool call began.
  case toolStarted(callID: String, toolName: String)
  /// A running tool's progress, 0...1.
  case toolProgress(callID: String, fraction: Double, message: String)
  /// A tool call ended.
  case toolFinished(callID: String, isError: Bool)
  /// A file a tool (`callID`) or the model (`nil`) made.
  case artifact(ChatFile, callID: String?)
  /// The preferred model did not answer; `from` did not, for `reason`.
  case fallback(from: String, reason: String)
  /// The answer's token usage.
  case usage(Usage)
  /// The answer is complete and saved.
  case done(ChatTurnSummary)
  /// The answer failed (or was stopped); the session keeps what it had before the message.
  case error(kind: String, message: String)

  /// The SSE event name.
  public var name: String {
    switch self {
    case .text: "text"
    case .toolStarted: "toolStarted"
    case .toolProgress: "toolProgress"
    case .toolFinished: "toolFinished"
    case .artifact: "artifact"
    case .fallback: "fallback"
    case .usage: "usage"
    case .done: "done"
    case .error: "error"
    }
  }

  /// The event's `data:` object.
  public var payload: JSONValue {
    switch self {
    case .text(let delta): ["delta": .string(delta)]
    case .toolStarted(let callID, let toolName): ["callID": .string(callID), "toolName": .string(toolName)]
    case .toolProgress(let callID, let fraction, let message):
      ["callID": .string(callID), "fraction": .number(fraction), "message": .string(message)]
    case .toolFinished(let callID, let isError): ["callID": .string(callID), "isError": .bool(isError)]
    case .artifact(let file, let callID):
      ["file": Self.json(file), "callID": callID.map(JSONValue.string) ?? .null]
    case .fallback(let from, let reason): ["from": .string(from), "reason": .string(reason)]
    case .usage(let usage): Self.json(usage)
    case .done(let summary): Self.json(summary)
    case .error(let kind, let message): ["kind": .string(kind), "message": .string(message)]
    }
  }

  /// The event as `text/event-stream` bytes.
  public var serverSentEvent: String {
    let data = (try? JSONEncoder.chat.encode(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return "event: \(name)\ndata: \(data)\n\n"
  }

  private static func json(_ value: some Encodable) -> JSONValue {
    (try? JSONEncoder.chat.encode(value)).flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) } ?? .null
  }
}

/// What the page shows under a finished answer: which model answered and why, and the cost.
public struct ChatTurnSummary: Sendable, Hashable, Codable {
  /// The model that answered (`modelVersion`).
  public var modelVersion: String
  /// `on-device` or `cloud`.
  public var source: String
  /// Why the preferred model did not answer, when it did not.
  public var fallbackReason: String?
  /// `stop`, `maxTokens`, …
  public var finishReason: String
  public var usage: Usage
  /// The mode the message was sent in.
  public var mode: String
  /// The session's entries after this answer.
  public var entryCount: Int
}

extension JSONEncoder {
  /// Sorted keys, ISO 8601 dates: what the chat API writes.
  static var chat: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }
}
