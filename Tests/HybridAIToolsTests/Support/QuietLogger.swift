import Logging

extension ToolTestSupport {
  /// A logger that keeps the test output quiet (expected failures included).
  static let quietLogger: Logger = {
    var logger = Logger(label: "HybridAIToolsTests")
    logger.logLevel = .critical
    return logger
  }()
}
