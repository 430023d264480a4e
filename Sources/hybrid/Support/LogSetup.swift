import Foundation
import Logging
import Synchronization

/// Sends swift-log output to standard error, once per process.
enum LogSetup {
  private static let done = Mutex(false)

  static func bootstrap(level: String?) {
    let name = level ?? ProcessInfo.processInfo.environment["HYBRIDAI_LOG_LEVEL"] ?? "warning"
    let logLevel = Logger.Level(rawValue: name.lowercased()) ?? .warning
    done.withLock { done in
      guard !done else { return }
      done = true
      LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = logLevel
        return handler
      }
    }
  }
}
