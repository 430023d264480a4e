import Synchronization

/// Runs an operation with a time limit; on expiry the caller gets ``Expired`` at once and the
/// operation is cancelled (even one that ignores cancellation no longer holds the caller up).
enum Deadline {
  struct Expired: Error {}

  private struct State<T: Sendable>: ~Copyable {
    var continuation: CheckedContinuation<T, any Error>?
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    var cancelled = false
  }

  static func run<T: Sendable>(within limit: Duration,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let state = Mutex(State<T>())
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        // Resumes the caller once, with the first of: the result, the expiry.
        let finish: @Sendable (Result<T, any Error>) -> Void = { result in
          let (waiting, timer, work) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.timer, state.work)
          }
          guard let waiting else { return }
          timer?.cancel()
          if case .failure(let error) = result, error is Expired { work?.cancel() }
          waiting.resume(with: result)
        }
        state.withLock { $0.continuation = continuation }
        let work = Task {
          do { finish(.success(try await operation())) } catch { finish(.failure(error)) }
        }
        let timer = Task {
          do {
            try await Task.sleep(for: limit)
            finish(.failure(Expired()))
          } catch {}
        }
        let (cancelled, finished) = state.withLock { state in
          state.work = work
          state.timer = timer
          return (state.cancelled, state.continuation == nil)
        }
        if finished { timer.cancel() }
        if cancelled { work.cancel() }
      }
    } onCancel: {
      let work = state.withLock { state in
        state.cancelled = true
        return state.work
      }
      work?.cancel()
    }
  }
}
