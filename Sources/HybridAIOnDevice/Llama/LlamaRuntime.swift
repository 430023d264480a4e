import CLlama
import Foundation
import Logging

/// Process-wide llama.cpp set-up: backend initialisation and routing llama.cpp's own log
/// output into swift-log (label `HybridAI.llama`, at `trace`/`debug`/`warning`/`error`).
enum LlamaRuntime {
  /// Runs once, on first use.
  private static let initialised: Void = {
    llama_log_set({ level, text, _ in
      guard let text else { return }
      let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
      guard !message.isEmpty else { return }
      switch level {
      case GGML_LOG_LEVEL_ERROR: LlamaRuntime.logger.error("\(message)")
      case GGML_LOG_LEVEL_WARN: LlamaRuntime.logger.warning("\(message)")
      case GGML_LOG_LEVEL_INFO: LlamaRuntime.logger.debug("\(message)")
      default: LlamaRuntime.logger.trace("\(message)")
      }
    }, nil)
    llama_backend_init()
  }()

  static let logger = Logger(label: "HybridAI.llama")

  /// Makes sure the backend is initialised; cheap after the first call.
  static func ensureInitialised() { _ = initialised }
}
