import CLlama
import CLlamaChatTemplates
import Foundation
import Logging
import Synchronization

/// Process-wide llama.cpp set-up: routing llama.cpp's own log output into swift-log (label
/// `HybridAI.llama`, at `trace`/`debug`/`warning`/`error`), loading the compute backends
/// (``ComputeBackends``) and initialising llama.cpp.
enum LlamaRuntime {
  /// Runs once, on first use.
  private static let initialised: Void = {
    llama_log_set({ level, text, _ in
      guard let text else { return }
      // Most of llama.cpp's lines (a model's metadata, each context's set-up) go to debug or trace:
      // when the logger is less verbose, they are dropped before any text is made of them.
      if level != GGML_LOG_LEVEL_ERROR, level != GGML_LOG_LEVEL_WARN, LlamaRuntime.logger.logLevel > .debug { return }
      let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
      guard !message.isEmpty else { return }
      LlamaRuntime.logger.log(level: LlamaRuntime.logLevel(of: message, level: level), "\(message)")
    }, nil)
    hybridai_chat_set_log_verbosity(-1)   // common's logger; its errors come back as typed errors
    _ = ComputeBackends.report
    llama_backend_init()
    isInitialised.store(true, ordering: .sequentiallyConsistent)
  }()

  /// The swift-log level for one of llama.cpp's messages. A computation stopped on purpose (a
  /// cancelled answer: the abort callback said stop) is reported by llama.cpp as a failed graph
  /// computation or ubatch (status 1, `GGML_STATUS_ABORTED`), a failed decode (`ret = 2`) and the cache
  /// entries it removes; those are routine, so they go to `debug`, not `error`.
  static func logLevel(of message: String, level: ggml_log_level) -> Logger.Level {
    let aborted = message.hasSuffix("compute_async failed with error 1") || message.hasSuffix("compute status: 1")
      || message.hasSuffix("failed to decode, ret = 2") || message.contains("removing memory module entries for seq_id")
    // An embedding context that asks for a pooling the model does not state (the mean, for a chat model): as meant.
    let chosenPooling = message.contains("model default pooling_type is")
    if aborted || chosenPooling { return .debug }
    switch level {
    case GGML_LOG_LEVEL_ERROR: return .error
    case GGML_LOG_LEVEL_WARN: return .warning
    case GGML_LOG_LEVEL_INFO: return .debug
    default: return .trace
    }
  }

  private static let isInitialised = Atomic(false)

  /// Whether anything in this process used llama.cpp (so there is something to shut down).
  static var wasInitialised: Bool { isInitialised.load(ordering: .sequentiallyConsistent) }

  static let logger = Logger(label: "HybridAI.llama")

  /// Makes sure the backends are loaded and llama.cpp is initialised; cheap after the first call.
  static func ensureInitialised() {
    _ = initialised
    checkAlive("initialisation")
  }

  private static let isShutDown = Atomic(false)

  /// Frees llama.cpp's backend; every model and context must be freed already. After this, any
  /// llama.cpp call is a bug that ``checkAlive(_:)`` reports.
  static func shutDown() {
    guard !isShutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
    llama_backend_free()
    logger.debug("llama.cpp backend freed")
  }

  /// Logs an error when `call` happens after ``shutDown()`` (on a GPU, such a call aborts the
  /// process with "driver shutting down"). Cheap: one atomic load.
  static func checkAlive(_ call: StaticString) {
    if isShutDown.load(ordering: .relaxed) {
      logger.error("llama.cpp call after the runtime was shut down: \(call)")
    }
  }
}
