import ArgumentParser
import Foundation
import Logging
import Synchronization

/// Logging verbosity for every command.
public struct LoggingOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (default: $HYBRIDAI_LOG_LEVEL or warning).")
  public var logLevel: String?

  @Option(name: .long, help: "Log format: text, or json (one object a line, for log collectors). Default: $HYBRIDAI_LOG_FORMAT or text.")
  public var logFormat: LogFormat?

  public init() {}

  public func validate() throws {
    if let logLevel, Logger.Level(rawValue: logLevel.lowercased()) == nil {
      throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got \(logLevel)")
    }
  }

  /// Sends swift-log output to standard error at the chosen level and format (once per process).
  public func bootstrap() { LogSetup.bootstrap(level: logLevel, format: logFormat) }
}

/// How log records are written.
public enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
  /// swift-log's text lines.
  case text
  /// One JSON object a line (``JSONLogHandler``).
  case json
}

/// Sends swift-log output to standard error, once per process.
public enum LogSetup {
  private static let done = Mutex(false)
  private static let chosenFormat = Mutex(LogFormat.text)

  /// The format ``bootstrap(level:format:)`` chose (text before it ran).
  public static var format: LogFormat { chosenFormat.withLock { $0 } }

  public static func bootstrap(level: String?, format: LogFormat? = nil) {
    let environment = ProcessInfo.processInfo.environment
    let name = level ?? environment["HYBRIDAI_LOG_LEVEL"] ?? "warning"
    let logLevel = Logger.Level(rawValue: name.lowercased()) ?? .warning
    let formatName = environment["HYBRIDAI_LOG_FORMAT"]
    let format = format ?? formatName.flatMap { LogFormat(rawValue: $0.lowercased()) } ?? .text
    // The variables have no parser to refuse them: say so rather than ignore them in silence.
    if level == nil, let name = environment["HYBRIDAI_LOG_LEVEL"], Logger.Level(rawValue: name.lowercased()) == nil {
      FileHandle.standardError.write(Data("warning: HYBRIDAI_LOG_LEVEL=\(name) is not a log level (\(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))); using warning\n".utf8))
    }
    if let formatName, LogFormat(rawValue: formatName.lowercased()) == nil {
      FileHandle.standardError.write(Data("warning: HYBRIDAI_LOG_FORMAT=\(formatName) is not a log format (text, json); using text\n".utf8))
    }
    done.withLock { done in
      guard !done else { return }
      done = true
      chosenFormat.withLock { $0 = format }
      LoggingSystem.bootstrap { label in
        switch format {
        case .text:
          var handler = StreamLogHandler.standardError(label: label)
          handler.logLevel = logLevel
          return handler
        case .json:
          var handler = JSONLogHandler(label: label)
          handler.logLevel = logLevel
          return handler
        }
      }
    }
  }
}
