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
  /// The default of ``maxQueuedBytes``.
  static let defaultMaxQueuedBytes = 8 << 20
  /// After a write failed, the rest of its batch is retried in slices of this size.
  static let failureSliceBytes = 64 << 10
  /// How many written bytes may wait in the page cache before their writeback is started: keeps
  /// the final `fsync` short (a 1 GiB part would otherwise flush everything at the end, ~0.5 s
  /// here).
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

    func hasRoom(below limit: Int) -> Bool { unhashedBytes < limit && unwrittenBytes < limit }
    var isDrained: Bool { unhashedBytes == 0 && unwrittenBytes == 0 }
  }

  /// Someone waiting for a condition on the queues (or for a failure).
  private struct Waiter {
    var condition: @Sendable (State) -> Bool
    var resume: @Sendable () -> Void
  }

  let path: String
  /// The most bytes waiting to be hashed, or to be written, before the receiver waits for room.
  let maxQueuedBytes: Int
  private let fd: Int32
  private let state: Mutex<State>
  /// Only the hash queue updates it (the lock keeps the type `Sendable`; it is never contended).
  private let hasher: Mutex<SHA256>
  private let hashQueue = DispatchQueue(label: "hybridai.model-delivery.hash")
  private let writeQueue = DispatchQueue(label: "hybridai.model-delivery.write")

  /// A writer appending to `fd` (which it owns from now on) from `offset`, whose first `offset`
  /// bytes hash to `hasher`'s state.
  init(fd: Int32, path: String, offset: Int64, hasher: SHA256, maxQueuedBytes: Int = defaultMaxQueuedBytes) {
    self.fd = fd
    self.maxQueuedBytes = maxQueuedBytes
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
    notify(whenRoom, once: { [maxQueuedBytes] in $0.hasRoom(below: maxQueuedBytes) })
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
    // One system call for the whole batch; when that fails, the batch is written again buffer by
    // buffer, keeping as much as fits.
    if Self.writeAll(buffers, to: fd, at: end) {
      end += Int64(buffers.reduce(0) { $0 + $1.readableBytes })
    } else {
      _ = ftruncate(fd, off_t(end))
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
    }
    let writeback = state.withLock { state -> Range<Int64>? in
      state.writtenEnd = end
      guard end - state.writebackRequestedAt >= Self.writebackInterval else { return nil }
      defer { state.writebackRequestedAt = end }
      return state.writebackRequestedAt..<end
    }
    if let writeback { POSIXFile.startWriteback(fd, from: writeback.lowerBound, count: Int64(writeback.count)) }
  }

  /// Writes all of `buffers` at `offset` with `pwritev` (up to 64 buffers a call); false when a
  /// call fails.
  private static func writeAll(_ buffers: [ByteBuffer], to fd: Int32, at offset: Int64) -> Bool {
    var vectors: [iovec] = []
    vectors.reserveCapacity(buffers.count)
    var storages: [Unmanaged<AnyObject>] = []
    storages.reserveCapacity(buffers.count)
    for buffer in buffers where buffer.readableBytes > 0 {
      buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
        vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count))
        storages.append(storage.retain())
      }
    }
    defer { for storage in storages { storage.release() } }
    var index = 0
    var position = offset
    while index < vectors.count {
      let count = Int32(min(vectors.count - index, 64))
      let result = vectors.withUnsafeMutableBufferPointer { pwritev(fd, $0.baseAddress! + index, count, off_t(position)) }
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { return false }
      position += Int64(result)
      // Skip the buffers written, and the written start of a partly written one.
      var written = result
      while written > 0 {
        if written >= vectors[index].iov_len {
          written -= vectors[index].iov_len
          index += 1
        } else {
          vectors[index].iov_base = vectors[index].iov_base.map { $0 + written }
          vectors[index].iov_len -= written
          written = 0
        }
      }
    }
    return true
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
