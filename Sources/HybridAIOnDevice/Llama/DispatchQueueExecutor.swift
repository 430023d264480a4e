import Dispatch

/// A serial executor on a dedicated dispatch queue.
///
/// Actors that wrap llama.cpp handles run on one of these, so the long, blocking C calls of a
/// generation never occupy a thread of Swift's cooperative pool.
final class DispatchQueueExecutor: SerialExecutor {
  let queue: DispatchQueue

  init(label: String) {
    queue = DispatchQueue(label: label, qos: .userInitiated)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
