import Synchronization

/// Something that owns a llama.cpp context and can free it on request: a session's
/// ``LlamaConversation`` or a ``BatchScheduler``.
protocol LlamaContextOwner: AnyObject, Sendable {
  /// Ends the work on the context and frees it now, on the owner's executor.
  func freeContext() async
}

/// Every live owner of a llama.cpp context (held weakly), so that ``OnDeviceRuntime/shutDown()``
/// frees them all before the weights and the backend, instead of leaving them to deinitialisers
/// that may run while the process exits (on a GPU that aborts: "CUDA error: driver shutting down").
final class LlamaContextRegistry: Sendable {
  static let shared = LlamaContextRegistry()

  private struct Entry {
    weak var owner: (any LlamaContextOwner)?
  }

  private let owners = Mutex<[ObjectIdentifier: Entry]>([:])

  func register(_ owner: any LlamaContextOwner) {
    owners.withLock { $0[ObjectIdentifier(owner)] = Entry(owner: owner) }
  }

  func unregister(_ owner: ObjectIdentifier) {
    _ = owners.withLock { $0.removeValue(forKey: owner) }
  }

  /// Frees every live context, then waits for the llama thread to run what was queued before
  /// (the deinitialisers of owners released just now).
  func freeAll() async {
    let live = owners.withLock { owners in
      defer { owners.removeAll() }
      return owners.values.compactMap(\.owner)
    }
    for owner in live { await owner.freeContext() }
    await withCheckedContinuation { continuation in
      LlamaConversation.sharedExecutor.queue.async { continuation.resume() }
    }
  }
}
