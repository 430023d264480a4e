import Foundation
import Logging
import Synchronization

/// A swift-log handler that writes one JSON object a line to standard error — `time` (ISO 8601
/// with milliseconds), `level`, `label`, `message`, `source`, and `metadata` when there is any —
/// for log collectors (`hybrid serve --log-format json`).
public struct JSONLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  private let label: String

  /// One line at a time, whichever thread logs.
  private static let output = Mutex(())

  public init(label: String) { self.label = label }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    let line = Self.line(time: Date(), level: event.level, label: label, message: "\(event.message)",
                         metadata: metadata.merging(event.metadata ?? [:]) { $1 }, source: event.source)
    Self.output.withLock { _ in FileHandle.standardError.write(Data((line + "\n").utf8)) }
  }

  /// The JSON object of one log record, on one line.
  static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
                   source: String) -> String {
    var object: [String: Any] = [
      "time": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time),   // UTC, e.g. 2026-11-26T01:47:57.014Z
      "level": level.rawValue, "label": label, "message": message, "source": source,
    ]
    if !metadata.isEmpty { object["metadata"] = metadata.mapValues(json) }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  private static func json(_ value: Logger.Metadata.Value) -> Any {
    switch value {
    case .string(let text): text
    case .stringConvertible(let value): value.description
    case .array(let values): values.map(json)
    case .dictionary(let values): values.mapValues(json)
    }
  }
}
