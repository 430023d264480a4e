import Crypto
import Foundation
@testable import ModelDelivery
import NIOCore
import Synchronization
import Testing

/// `PartWriter`: batches hashed and written on two queues, in order, with room reported back, and
/// a failed write that stops it with a typed failure.
@Suite struct PartWriterTests {
  /// A temporary directory, deleted at the end.
  final class Scratch {
    let directory: URL
    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("PartWriterTests-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: directory) }
  }

  /// `data` cut into buffers of `sizes` (cycled), grouped into batches of `perBatch` buffers.
  static func batches(of data: Data, sizes: [Int], perBatch: Int) -> [[ByteBuffer]] {
    var buffers: [ByteBuffer] = []
    var position = 0
    var index = 0
    while position < data.count {
      let end = min(position + sizes[index % sizes.count], data.count)
      buffers.append(ByteBuffer(bytes: data[position..<end]))
      position = end
      index += 1
    }
    return stride(from: 0, to: buffers.count, by: perBatch).map { Array(buffers[$0..<min($0 + perBatch, buffers.count)]) }
  }

  static func hex(_ hash: SHA256) -> String { hash.finalize().map { String(format: "%02x", $0) }.joined() }

  @Test func batchesAreWrittenAndHashedInOrderAfterWhatWasThere() async throws {
    let scratch = try Scratch()
    let path = scratch.directory.appendingPathComponent("part").path
    let head = TestSupport.bytes(10_000, seed: 91)
    try head.write(to: URL(fileURLWithPath: path))
    var hasher = SHA256()
    hasher.update(data: head)
    let fd = try POSIXFile.open(path, O_RDWR)
    // A small limit, so that room is often waited for.
    let writer = PartWriter(fd: fd, path: path, offset: Int64(head.count), hasher: hasher, maxQueuedBytes: 64 << 10)
    let body = TestSupport.bytes(3 << 20, seed: 92)
    let rooms = Mutex(0)
    let batches = Self.batches(of: body, sizes: [65_536, 1, 12_345, 100_000], perBatch: 5)
    for batch in batches {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        writer.enqueue(batch) {
          rooms.withLock { $0 += 1 }
          continuation.resume()
        }
      }
    }
    try await writer.drain()
    writer.close()

    #expect(rooms.withLock { $0 } == batches.count)
    #expect(writer.acceptedEnd == Int64(head.count + body.count))
    #expect(writer.failure == nil)
    let written = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(written == head + body)
    let expectedSHA = await TestSHA256.hex(head + body)
    #expect(Self.hex(writer.currentHash()) == expectedSHA)
  }

  @Test func aFullDiskStopsTheWriterWithATypedFailureAndRoomIsStillReported() async throws {
    // /dev/full fails every write with ENOSPC.
    let fd = try POSIXFile.open("/dev/full", O_WRONLY)
    let writer = PartWriter(fd: fd, path: "/dev/full", offset: 0, hasher: SHA256())
    let batch = Self.batches(of: TestSupport.bytes(200_000, seed: 93), sizes: [70_000], perBatch: 3)[0]
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      writer.enqueue(batch) { continuation.resume() }
    }
    let failure = await #expect(throws: POSIXFile.Failure.self) { try await writer.drain() }
    #expect(failure?.isOutOfSpace == true)
    #expect(failure?.code == ENOSPC)
    #expect(writer.failure?.code == ENOSPC)
    #expect(writer.acceptedEnd == 0)   // nothing was kept

    // A stopped writer queues nothing more, and still says when there is room.
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      writer.enqueue(batch) { continuation.resume() }
    }
    #expect(writer.acceptedEnd == 0)
    await #expect(throws: POSIXFile.Failure.self) { try await writer.drain() }
    writer.close()
  }

  @Test func resetEmptiesTheFileAndTheHash() async throws {
    let scratch = try Scratch()
    let path = scratch.directory.appendingPathComponent("part").path
    let fd = try POSIXFile.open(path, O_RDWR | O_CREAT)
    let writer = PartWriter(fd: fd, path: path, offset: 0, hasher: SHA256())
    let first = TestSupport.bytes(50_000, seed: 94)
    writer.enqueue([ByteBuffer(bytes: first)]) {}
    try await writer.drain()
    try writer.reset()
    let second = TestSupport.bytes(30_000, seed: 95)
    writer.enqueue([ByteBuffer(bytes: second)]) {}
    try await writer.drain()
    try writer.sync()
    writer.close()

    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == second)
    #expect(writer.acceptedEnd == Int64(second.count))
    let expectedSHA = await TestSHA256.hex(second)
    #expect(Self.hex(writer.currentHash()) == expectedSHA)
  }
}
