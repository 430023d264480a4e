import Synchronization

/// Fires once, when an MCP server's process has ended: requests waiting on the server then fail at
/// once instead of at their time limit.
final class ServerExit: Sendable {
  private struct State {
    var error: MCPError?
    var waiters: [Int: CheckedContinuation<MCPError?, Never>] = [:]
    var nextID = 0
  }
  private let state = Mutex(State())

  /// How the server ended; `nil` while it runs.
  var error: MCPError? { state.withLock { $0.error } }

  /// Records how the server ended and wakes every waiter.
  func fire(_ error: MCPError) {
    let waiters = state.withLock { state -> [CheckedContinuation<MCPError?, Never>] in
      state.error = error
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume(returning: error) }
  }

  /// How the server ended, once it has; `nil` when the waiting task is cancelled first.
  func wait() async -> MCPError? {
    let id = state.withLock { state -> Int in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // Decided under the lock that the cancellation handler takes too: the error already
        // known, a cancellation already made, or a waiter to wake later.
        let immediate = state.withLock { state -> MCPError?? in
          if let error = state.error { return .some(error) }
          if Task.isCancelled { return .some(nil) }
          state.waiters[id] = continuation
          return .none
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
    }
  }
}
