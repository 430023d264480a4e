import Synchronization

/// A step of a test that did not finish within its time limit.
public struct StepTimedOut: Error, CustomStringConvertible {
  /// What the step was doing.
  public let step: String
  /// The limit it missed.
  public let limit: Duration

  public var description: String { "the step \"\(step)\" did not finish within \(limit)" }
}

/// Runs one step of a test with a time limit. A step still running at the limit fails the test with
/// ``StepTimedOut``, naming the step, and is left running: a test that would otherwise wait forever
/// says where it waits instead of stalling the whole run.
public func timeLimitedStep<T: Sendable>(
  _ step: String, within limit: Duration = .seconds(300),
  _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  let waiting = Mutex<CheckedContinuation<T, any Error>?>(nil)
  let finish: @Sendable (Result<T, any Error>) -> Void = { result in
    waiting.withLock { continuation in
      defer { continuation = nil }
      return continuation
    }?.resume(with: result)
  }
  return try await withCheckedThrowingContinuation { continuation in
    waiting.withLock { $0 = continuation }
    let timer = Task {
      try await Task.sleep(for: limit)
      finish(.failure(StepTimedOut(step: step, limit: limit)))
    }
    Task {
      finish(await Result(catching: body))
      timer.cancel()
    }
  }
}

extension Result where Failure == any Error {
  /// The result of an async throwing body.
  fileprivate init(catching body: () async throws -> Success) async {
    do { self = .success(try await body()) } catch { self = .failure(error) }
  }
}
