import CLlama
import Foundation
import Logging
import Synchronization

/// libmtmd's log output (it has its own logger, apart from llama.cpp's) routed into swift-log
/// (label `HybridAI.mtmd`), with its error messages captured around a call so that a failed load
/// reports libmtmd's reason (a projector for another model names both embedding sizes).
enum MultimodalLog {
  static let logger = Logger(label: "HybridAI.mtmd")
  private static let captured = Mutex<[String]?>(nil)

  private static let installed: Void = {
    mtmd_helper_log_set({ level, text, _ in
      guard let text else { return }
      let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
      guard !message.isEmpty else { return }
      if level == GGML_LOG_LEVEL_ERROR {
        MultimodalLog.captured.withLock { $0?.append(message) }
      }
      MultimodalLog.logger.log(level: LlamaRuntime.logLevel(of: message, level: level), "\(message)")
    }, nil)
  }()

  /// Runs `body`, returning its result and the error messages libmtmd logged meanwhile.
  static func capturingErrors<Result>(_ body: () throws -> Result) rethrows -> (Result, errors: [String]) {
    _ = installed
    captured.withLock { $0 = [] }
    let result = try body()
    let errors = captured.withLock { captured in
      defer { captured = nil }
      return captured ?? []
    }
    return (result, errors.map(Self.plain))
  }

  /// "clip_init: error: mismatch …" → "mismatch …".
  private static func plain(_ message: String) -> String {
    guard let range = message.range(of: "error: ") else { return message }
    return String(message[range.upperBound...])
  }
}
