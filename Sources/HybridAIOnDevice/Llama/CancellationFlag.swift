import Synchronization

/// A flag that a task's cancellation handler sets and a blocking C loop polls, including
/// llama.cpp's abort callback during prompt evaluation.
final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)

  var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  func cancel() { cancelled.store(true, ordering: .relaxed) }
}
