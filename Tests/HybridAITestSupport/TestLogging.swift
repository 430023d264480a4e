import Foundation
import Logging

/// Loggers for what tests start: quiet unless `HYBRIDAI_TEST_LOG` is set (then `debug`).
public enum TestLogging {
  /// A logger labelled `tests.<label>`.
  public static func logger(_ label: String) -> Logger {
    var logger = Logger(label: "tests.\(label)")
    logger.logLevel = ProcessInfo.processInfo.environment["HYBRIDAI_TEST_LOG"] != nil ? .debug : .critical
    return logger
  }
}
