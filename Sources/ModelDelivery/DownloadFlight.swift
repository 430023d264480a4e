import Synchronization

/// One fetch of a model (check, download, install), shared by every caller that asks for the
/// model while it runs: concurrent `getModel` calls wait for the same task instead of starting
/// their own.
///
/// The task is cancelled when the last waiting caller is cancelled, unless the flight runs in the
/// background (started by `.localModelUpdateInBackground` or `prepareFile()`), which nobody waits
/// for. A cancelled caller stops waiting at once, whatever happens to the task.
final class DownloadFlight: Sendable {
  typealias Continuation = CheckedContinuation<CustomModel, any Error>

  let name: String
  let id: UInt64

  private struct State {
    var result: Result<CustomModel, any Error>?
    var waiters: [UInt64: Continuation] = [:]
    var cancelledWaiters: Set<UInt64> = []
    var nextWaiter: UInt64 = 0
    var isBackground: Bool
    var isAbandoned = false
    var task: Task<Void, Never>?
    /// Set when the model is deleted meanwhile: waiters get this error instead of the task's.
    var overridingError: ModelDownloadError?
  }

  private let state: Mutex<State>

  init(name: String, id: UInt64, isBackground: Bool) {
    self.name = name
    self.id = id
    self.state = Mutex(State(isBackground: isBackground))
  }

  /// Starts the task; `onFinish` runs once it is over, before waiters are resumed.
  func start(_ operation: @escaping @Sendable () async throws -> CustomModel,
             onFinish: @escaping @Sendable (Result<CustomModel, any Error>) -> Void) {
    let task = Task {
      let result: Result<CustomModel, any Error>
      do {
        result = .success(try await operation())
      } catch {
        result = .failure(error)
      }
      onFinish(result)
      self.finish(result)
    }
    state.withLock { $0.task = task }
  }

  /// Keeps the task running even when every waiter is cancelled.
  func runInBackground() {
    state.withLock { $0.isBackground = true }
  }

  var isAbandoned: Bool { state.withLock { $0.isAbandoned } }

  /// Returns once the task has ended (without cancelling or joining it).
  func waitUntilFinished() async {
    await state.withLock { $0.task }?.value
  }

  /// Waits for the result. Cancelling the calling task stops the wait (throwing
  /// `CancellationError`); `onAbandon` runs when that leaves the flight without waiters, so that
  /// it was cancelled.
  func wait(onAbandon: @escaping @Sendable () -> Void) async throws -> CustomModel {
    let waiter = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Continuation) in
        let (immediate, taskToCancel): (Result<CustomModel, any Error>?, Task<Void, Never>?) = state.withLock { state in
          if let result = state.result { return (state.overridingError.map { .failure($0) } ?? result, nil) }
          if state.cancelledWaiters.remove(waiter) != nil {
            // Cancelled before it began to wait: leave as `leave` would have.
            if state.waiters.isEmpty, !state.isBackground, !state.isAbandoned {
              state.isAbandoned = true
              return (.failure(CancellationError()), state.task)
            }
            return (.failure(CancellationError()), nil)
          }
          state.waiters[waiter] = continuation
          return (nil, nil)
        }
        if let taskToCancel {
          taskToCancel.cancel()
          onAbandon()
        }
        if let immediate { continuation.resume(with: immediate) }
      }
    } onCancel: {
      if leave(waiter) { onAbandon() }
    }
  }

  /// Removes a cancelled waiter (resuming it with `CancellationError`); cancels the task when no
  /// waiter is left and the flight is not a background one. Returns whether it cancelled the task.
  private func leave(_ waiter: UInt64) -> Bool {
    let (continuation, taskToCancel): (Continuation?, Task<Void, Never>?) = state.withLock { state in
      guard state.result == nil else { return (nil, nil) }
      guard let continuation = state.waiters.removeValue(forKey: waiter) else {
        state.cancelledWaiters.insert(waiter)
        return (nil, nil)
      }
      if state.waiters.isEmpty, !state.isBackground, !state.isAbandoned {
        state.isAbandoned = true
        return (continuation, state.task)
      }
      return (continuation, nil)
    }
    continuation?.resume(throwing: CancellationError())
    taskToCancel?.cancel()
    return taskToCancel != nil
  }

  /// Cancels the task because the model is being deleted; waiters get `error`.
  func abandon(with error: ModelDownloadError) -> Task<Void, Never>? {
    state.withLock { state in
      state.isAbandoned = true
      state.overridingError = error
      state.task?.cancel()
      return state.task
    }
  }

  private func finish(_ result: Result<CustomModel, any Error>) {
    let (waiters, delivered): ([Continuation], Result<CustomModel, any Error>) = state.withLock { state in
      state.result = result
      let delivered = state.overridingError.map { .failure($0) } ?? result
      defer { state.waiters.removeAll() }
      return (Array(state.waiters.values), delivered)
    }
    for waiter in waiters { waiter.resume(with: delivered) }
  }
}
