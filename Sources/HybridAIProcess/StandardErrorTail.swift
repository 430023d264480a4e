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

  /// Reads `sequence` to its end and returns its tail as text.
  static func read(_ sequence: SubprocessOutputSequence) async throws -> String {
    var tail = StandardErrorTail()
    for try await buffer in sequence { tail.append(buffer) }
    return tail.text
  }
}
