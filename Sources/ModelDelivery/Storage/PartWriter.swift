import Crypto
import Dispatch
import Foundation
import NIOCore
import Synchronization

/// Writes a download's bytes into its part file and hashes them, off the thread that receives
/// them: one serial queue hashes, another writes, so that receiving the next bytes, hashing and
/// writing overlap. (Measured on two cores, a 1 GiB download spends roughly as long receiving as
/// hashing as writing; done one after the other they took 2.3 s, a bare `curl` 1.5 s.)
///
/// ``enqueue(_:whenRoom:)`` never blocks: it says when the queues have room again (at most
/// ``maxQueuedBytes`` wait in each), and the receiver holds back its next read until then. Bytes
/// are written in order at the end of the file. A failed write keeps as much of the failed batch
/// as the disk takes (in slices of ``failureSliceBytes``), truncates the file to the end of the
/// last good slice and stops the writer: ``failure`` is set, ``drain()`` throws it, later batches
/// are dropped, and the hash no longer describes the file (the part is re-hashed from disk when it
/// is opened again).
final class PartWriter: Sendable {
  /// The most bytes waiting to be hashed, or to be written, before the receiver waits for room.
  static let maxQueuedBytes = 8 << 20
  /// After a write failed, the rest of its batch is retried in slices of this size.
  static let failureSliceBytes = 64 << 10
  /// How many written bytes may wait in the page cache before writeback is started: keeps the
  /// final `fsync` short (a 1 GiB part would otherwise flush everything at the end, ~0.5 s here)
  /// and the page cache of a large download small.
  static let writebackInterval: Int64 = 16 << 20

  private struct State {
    var unhashedBytes = 0
    var unwrittenBytes = 0
    /// Where the file ends once the queued bytes are written (after a failure: where it ends).
    var acceptedEnd: Int64
    /// The end of the last good write.
    var writtenEnd: Int64
    var writebackRequestedAt: Int64
    var failure: POSIXFile.Failure?
    var isClosed = false
    var waiters: [Waiter] = []

    var hasRoom: Bool { unhashedBytes < PartWriter.maxQueuedBytes && unwrittenBytes < PartWriter.maxQueuedBytes }
    var isDrained: Bool { unhashedBytes == 0 && unwrittenBytes == 0 }
  }

  /// Someone waiting for a condition on the queues (or for a failure).
  private struct Waiter {
    var condition: @Sendable (State) -> Bool
    var resume: @Sendable () -> Void
  }

  let path: String
  private let fd: Int32
  private let state: Mutex<State>
  /// Only the hash queue updates it (the lock keeps the type `Sendable`; it is never contended).
  private let hasher: Mutex<SHA256>
  private let hashQueue = DispatchQueue(label: "hybridai.model-delivery.hash")
  private let writeQueue = DispatchQueue(label: "hybridai.model-delivery.write")

  /// A writer appending to `fd` (which it owns from now on) from `offset`, whose first `offset`
  /// bytes hash to `hasher`'s state.
  init(fd: Int32, path: String, offset: Int64, hasher: SHA256) {
    self.fd = fd
    self.path = path
    self.state = Mutex(State(acceptedEnd: offset, writtenEnd: offset, writebackRequestedAt: offset))
    self.hasher = Mutex(hasher)
  }

  /// Queues `buffers` (in order) for hashing and writing, without waiting; `whenRoom` runs (on
  /// this thread when there is room now, else later on a queue's thread) once both queues have
  /// room again or a write has failed. After a failure, nothing more is queued.
  func enqueue(_ buffers: [ByteBuffer], whenRoom: @escaping @Sendable () -> Void) {
    let count = buffers.reduce(0) { $0 + $1.readableBytes }
    let queued = state.withLock { state -> Bool in
      guard state.failure == nil, count > 0 else { return false }
      state.unhashedBytes += count
      state.unwrittenBytes += count
      state.acceptedEnd += Int64(count)
      return true
    }
    if queued {
      hashQueue.async { [self] in
        hasher.withLock { hasher in
          for buffer in buffers { buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) } }
        }
        finish { $0.unhashedBytes -= count }
      }
      writeQueue.async { [self] in
        write(buffers)
        finish { $0.unwrittenBytes -= count }
      }
    }
    notify(whenRoom, once: { $0.hasRoom })
  }

  /// Returns once everything queued is hashed and written; throws the first write failure.
  func drain() async throws(POSIXFile.Failure) {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      notify({ continuation.resume() }, once: { $0.isDrained })
    }
    if let failure { throw failure }
  }

  /// The failure that stopped the writer, if one did.
  var failure: POSIXFile.Failure? { state.withLock { $0.failure } }

  /// Where the file ends once everything queued is written (after a failure: where it ends).
  var acceptedEnd: Int64 { state.withLock { $0.acceptedEnd } }

  /// The hash of the bytes hashed so far (all of them after ``drain()``).
  func currentHash() -> SHA256 { hasher.withLock { $0 } }

  /// Empties the file and the hash, after ``drain()``.
  func reset() throws(POSIXFile.Failure) {
    try POSIXFile.truncate(fd, to: 0, path: path)
    hasher.withLock { $0 = SHA256() }
    state.withLock {
      $0.acceptedEnd = 0
      $0.writtenEnd = 0
      $0.writebackRequestedAt = 0
    }
  }

  /// `fsync`s the file, after ``drain()``.
  func sync() throws(POSIXFile.Failure) {
    try POSIXFile.sync(fd, path: path)
  }

  /// Closes the file once the queued writes are done (at once when none are queued); idempotent.
  func close() {
    let closesNow = state.withLock { state -> Bool? in
      guard !state.isClosed else { return nil }
      state.isClosed = true
      return state.unwrittenBytes == 0
    }
    switch closesNow {
    case true?: _ = Glibc.close(fd)
    case false?: writeQueue.async { [fd] in _ = Glibc.close(fd) }
    case nil: break
    }
  }

  // MARK: - Queues

  /// Runs `resume` once `condition` holds or a write has failed: now, or when a queue finishes
  /// a batch.
  private func notify(_ resume: @escaping @Sendable () -> Void, once condition: @escaping @Sendable (State) -> Bool) {
    let now = state.withLock { state in
      if state.failure != nil || condition(state) { return true }
      state.waiters.append(Waiter(condition: condition, resume: resume))
      return false
    }
    if now { resume() }
  }

  /// Applies `change` and runs the waiters whose conditions now hold.
  private func finish(_ change: (inout State) -> Void) {
    let ready = state.withLock { state -> [Waiter] in
      change(&state)
      let failed = state.failure != nil
      let current = state
      var ready: [Waiter] = []
      var waiting: [Waiter] = []
      for waiter in current.waiters {
        if failed || waiter.condition(current) { ready.append(waiter) } else { waiting.append(waiter) }
      }
      state.waiters = waiting
      return ready
    }
    for waiter in ready { waiter.resume() }
  }

  /// On the write queue: writes `buffers` at the end of the file, unless a write failed before.
  private func write(_ buffers: [ByteBuffer]) {
    guard var end = state.withLock({ $0.failure == nil ? $0.writtenEnd : nil }) else { return }
    for buffer in buffers {
      if let failure = write(buffer, at: &end) {
        _ = ftruncate(fd, off_t(end))
        state.withLock {
          $0.writtenEnd = end
          $0.acceptedEnd = end
          $0.failure = failure
        }
        return
      }
    }
    let requestWriteback = state.withLock { state in
      state.writtenEnd = end
      guard end - state.writebackRequestedAt >= Self.writebackInterval else { return false }
      state.writebackRequestedAt = end
      return true
    }
    // Linux's POSIX_FADV_DONTNEED starts asynchronous writeback of the dirty pages in the range
    // and drops the clean ones; advisory, so a failure changes nothing.
    if requestWriteback { _ = posix_fadvise(fd, 0, off_t(end), POSIX_FADV_DONTNEED) }
  }

  /// Writes one buffer at `end` and advances it; on failure, keeps what fits in slices and
  /// returns the failure with `end` after the last slice written.
  private func write(_ buffer: ByteBuffer, at end: inout Int64) -> POSIXFile.Failure? {
    let first = buffer.withUnsafeReadableBytes { bytes in
      Result { () throws(POSIXFile.Failure) in try POSIXFile.write(fd, bytes, at: end, path: path) }
    }
    guard case .failure(let failure) = first else {
      end += Int64(buffer.readableBytes)
      return nil
    }
    _ = ftruncate(fd, off_t(end))
    var rest = buffer
    while let slice = rest.readSlice(length: min(Self.failureSliceBytes, rest.readableBytes)) {
      let written = slice.withUnsafeReadableBytes { bytes in
        Result { () throws(POSIXFile.Failure) in try POSIXFile.write(fd, bytes, at: end, path: path) }
      }
      guard case .success = written else { break }
      end += Int64(slice.readableBytes)
    }
    return failure
  }
}
