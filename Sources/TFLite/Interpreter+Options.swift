extension Interpreter {
  /// How an ``Interpreter`` runs a model.
  public struct Options: Sendable, Hashable {
    /// CPU threads for the XNNPACK kernels (LiteRT's CPU path); nil keeps the runtime's default,
    /// which is 1 — as in Python's `Interpreter(num_threads=None)`. Must be at least 1.
    public var threadCount: Int?
    /// An upper bound on one ``Interpreter/invoke()``: the runtime checks it between operations
    /// and stops with ``InterpreterError/invocationTimedOut(limit:)``. One delegated operation
    /// (XNNPACK runs most models as one) cannot be interrupted, so the bound is approximate. nil:
    /// no bound.
    public var invocationTimeLimit: Duration?
    /// The most bytes one tensor may declare (and occupy after a resize). Guards against corrupt
    /// or hostile models asking for huge allocations. Default 1 GiB.
    public var maximumTensorByteCount: Int
    /// The most bytes all non-constant tensors of a subgraph may declare together. Default 4 GiB.
    public var maximumTotalTensorByteCount: Int
    /// The least severe LiteRT log message that is printed (to standard error, never standard
    /// output). The setting is process-wide in LiteRT; the last interpreter created wins.
    /// TensorFlow Lite's one-time "Created TensorFlow Lite XNNPACK delegate for CPU." line is
    /// printed by a logger this setting does not reach.
    public var runtimeLogSeverity: RuntimeLogSeverity

    /// Options with `threadCount` threads (nil: the runtime's default) and default limits.
    public init(threadCount: Int? = nil,
                invocationTimeLimit: Duration? = nil,
                maximumTensorByteCount: Int = 1 << 30,
                maximumTotalTensorByteCount: Int = 4 << 30,
                runtimeLogSeverity: RuntimeLogSeverity = .error) {
      self.threadCount = threadCount
      self.invocationTimeLimit = invocationTimeLimit
      self.maximumTensorByteCount = maximumTensorByteCount
      self.maximumTotalTensorByteCount = maximumTotalTensorByteCount
      self.runtimeLogSeverity = runtimeLogSeverity
    }

    /// Throws ``InterpreterError/invalidOptions(reason:)`` for values out of range.
    func validate() throws(InterpreterError) {
      if let threadCount, threadCount < 1 {
        throw .invalidOptions(reason: "threadCount must be at least 1, got \(threadCount)")
      }
      if let invocationTimeLimit, invocationTimeLimit <= .zero {
        throw .invalidOptions(reason: "invocationTimeLimit must be positive, got \(invocationTimeLimit)")
      }
      guard maximumTensorByteCount > 0, maximumTotalTensorByteCount > 0 else {
        throw .invalidOptions(reason: "tensor byte limits must be positive")
      }
    }
  }

  /// LiteRT's log severities, least severe first.
  public enum RuntimeLogSeverity: Int, Sendable, Hashable, CaseIterable {
    case verbose = 0
    case info = 1
    case warning = 2
    case error = 3
    /// Nothing.
    case silent = 4
  }
}
