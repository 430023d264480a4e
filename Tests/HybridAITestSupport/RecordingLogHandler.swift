import Logging
import Synchronization

/// A log handler that keeps what it is given, so a test can check what was logged.
///
/// ```swift
/// let records = RecordingLogHandler.Records()
/// let logger = Logger(label: "test") { RecordingLogHandler(label: $0, records: records) }
/// … // run the code under test with `logger`
/// #expect(records.all.contains { $0.message == "started" })
/// ```
public struct RecordingLogHandler: LogHandler {
  /// One logged message.
  public struct Record: Sendable {
    public var level: Logger.Level
    public var message: String
    public var metadata: Logger.Metadata
  }

  /// The messages logged through every handler that shares it.
  public final class Records: Sendable {
    private let records = Mutex<[Record]>([])
    public init() {}
    public var all: [Record] { records.withLock { $0 } }
    func append(_ record: Record) { records.withLock { $0.append(record) } }
  }

  public var metadata: Logger.Metadata = [:]
  public var logLevel: Logger.Level = .trace
  private let records: Records

  public init(label: String, records: Records) { self.records = records }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    records.append(Record(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
  }
}
