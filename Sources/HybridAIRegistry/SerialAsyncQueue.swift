/// Runs async operations one at a time, in the order they were submitted (an actor alone would
/// interleave them at every `await`).
actor SerialAsyncQueue {
  private var tail: Task<Void, Never>?

  func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let previous = tail
    let task = Task<T, any Error> {
      await previous?.value
      return try await operation()
    }
    tail = Task { _ = await task.result }
    return try await task.value
  }
}
