import ArgumentParser
import Foundation
import Logging
import Synchronization

/// Logging verbosity for every command.
public struct LoggingOptions: ParsableArguments {
  @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (default: $HYBRIDAI_LOG_LEVEL or warning).")
  public var logLevel: String?

  public init() {}

  /// Sends swift-log output to standard error at the chosen level (once per process).
  public func bootstrap() { LogSetup.bootstrap(level: logLevel) }
}

/// Sends swift-log output to standard error, once per process.
public enum LogSetup {
  private static let done = Mutex(false)

  public static func bootstrap(level: String?) {
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
