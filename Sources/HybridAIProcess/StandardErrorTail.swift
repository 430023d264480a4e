import Foundation
import Subprocess

/// The end of a child's standard error: read to its end, keeping the last
/// ``ChildProcess/maximumStandardErrorBytes`` (a chatty child never fails for writing too much, and
/// what went wrong, usually said last, is kept).
struct StandardErrorTail {
  private var bytes: [UInt8] = []
  private let limit: Int

  init(limit: Int = ChildProcess.maximumStandardErrorBytes) { self.limit = limit }

  mutating func append(_ buffer: SubprocessOutputSequence.Buffer) {
    buffer.withUnsafeBytes { bytes.append(contentsOf: $0) }
    if bytes.count > 2 * limit { bytes.removeFirst(bytes.count - limit) }
  }

  var text: String { String(decoding: bytes.suffix(limit), as: UTF8.self) }

  /// Reads `sequence` to its end and returns its tail as text; `eachLine`, when given, gets every
  /// line as it arrives.
  static func read(_ sequence: SubprocessOutputSequence, eachLine: (@Sendable (String) -> Void)? = nil) async throws -> String {
    var tail = StandardErrorTail()
    var lines = LineSplitter(limit: ChildProcess.maximumStandardErrorBytes)
    for try await buffer in sequence {
      tail.append(buffer)
      if let eachLine { buffer.withUnsafeBytes { lines.append($0, eachLine) } }
    }
    if let eachLine { lines.finish(eachLine) }
    return tail.text
  }
}

/// Bytes into lines: each complete line (without `\n` or `\r\n`) handed on; a line longer than
/// `limit` bytes in pieces of `limit`, so a child that never ends a line cannot grow memory.
struct LineSplitter {
  private var pending: [UInt8] = []
  let limit: Int

  init(limit: Int) { self.limit = limit }

  mutating func append(_ bytes: UnsafeRawBufferPointer, _ line: (String) -> Void) {
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        emit(line)
      } else {
        pending.append(byte)
        if pending.count >= limit { emit(line) }
      }
    }
  }

  /// Hands on what is left after the last line break.
  mutating func finish(_ line: (String) -> Void) {
    if !pending.isEmpty { emit(line) }
  }

  private mutating func emit(_ line: (String) -> Void) {
    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
    line(String(decoding: pending, as: UTF8.self))
    pending.removeAll(keepingCapacity: true)
  }
}
