import Foundation
import Synchronization

/// Hands each ``ToolActivity`` to every current subscriber of
/// ``GenerativeModelSession/toolEvents``, in the order it was sent.
final class ToolActivityBroadcaster: Sendable {
  private let subscribers = Mutex<[UUID: AsyncStream<ToolActivity>.Continuation]>([:])

  /// A new subscription; it ends when the stream's consumer stops iterating or the session goes.
  func subscribe() -> AsyncStream<ToolActivity> {
    let (stream, continuation) = AsyncStream.makeStream(of: ToolActivity.self, bufferingPolicy: .unbounded)
    let id = UUID()
    subscribers.withLock { $0[id] = continuation }
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    return stream
  }

  /// Sends `activity` to all subscribers. Under the lock, so that concurrent senders cannot
  /// reorder one sender's events.
  func send(_ activity: ToolActivity) {
    subscribers.withLock { subscribers in
      for continuation in subscribers.values { continuation.yield(activity) }
    }
  }

  deinit {
    let continuations = subscribers.withLock { Array($0.values) }
    for continuation in continuations { continuation.finish() }
  }
}
