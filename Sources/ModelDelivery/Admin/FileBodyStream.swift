import Foundation
import NIOCore

/// A file's bytes as an `AsyncSequence` of buffers, read from disk a chunk at a time, for
/// uploading without holding the file in memory. Exactly `length` bytes are produced; a file that
/// shrank meanwhile fails the sequence.
struct FileBodyStream: AsyncSequence, Sendable {
  typealias Element = ByteBuffer

  /// The open file; closed when the last reference goes.
  final class OpenFile: Sendable {
    let fd: Int32
    let path: String
    init(fd: Int32, path: String) {
      self.fd = fd
      self.path = path
    }
    deinit { close(fd) }
  }

  let file: OpenFile
  let length: Int64
  let chunkSize: Int

  /// Opens `path` for reading; returns the stream and the file's size.
  static func open(_ path: String, chunkSize: Int = 256 << 10) throws(POSIXFile.Failure) -> FileBodyStream {
    let fd = try POSIXFile.open(path, O_RDONLY)
    let file = OpenFile(fd: fd, path: path)
    let length = try POSIXFile.size(fd, path: path)
    return FileBodyStream(file: file, length: length, chunkSize: chunkSize)
  }

  struct AsyncIterator: AsyncIteratorProtocol {
    let file: OpenFile
    let length: Int64
    let chunkSize: Int
    var offset: Int64 = 0

    mutating func next() async throws -> ByteBuffer? {
      guard offset < length else { return nil }
      let wanted = Int(Swift.min(Int64(chunkSize), length - offset))
      var buffer = ByteBufferAllocator().buffer(capacity: wanted)
      let position = offset
      let file = self.file
      let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { pointer in
        try POSIXFile.read(file.fd, into: UnsafeMutableRawBufferPointer(rebasing: pointer[0..<wanted]), at: position,
                           path: file.path)
      }
      guard count == wanted else { throw POSIXFile.Failure(operation: "read", path: file.path, code: EIO) }
      offset += Int64(count)
      return buffer
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(file: file, length: length, chunkSize: chunkSize)
  }
}
