import Foundation

/// A child's standard output cut into lines as its buffers arrive: `\n` or `\r\n` ends a line; a
/// line longer than `limit` bytes is an error (the lines before it are kept). Line breaks are found
/// with `memchr`, so a long line — an MCP message with a photo in it — costs little to read.
struct OutputLines {
  /// A line grew past the limit.
  struct LineTooLong: Error {}

  private var pending: [UInt8] = []
  let limit: Int

  init(limit: Int) { self.limit = limit }

  /// Hands each line `bytes` completes to `line`, in order; throws once a line grows past the
  /// limit (the lines before it in `bytes` have been handed on).
  mutating func append(_ bytes: UnsafeRawBufferPointer, _ line: (String) -> Void) throws(LineTooLong) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    var start = 0
    while start < bytes.count, let found = memchr(base + start, 0x0A, bytes.count - start) {
      let end = base.distance(to: UnsafeRawPointer(found))
      try take(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
      line(completed())
      start = end + 1
    }
    try take(UnsafeRawBufferPointer(rebasing: bytes[start...]))
  }

  /// What is left after the last line break, as the last line; `nil` when nothing is.
  mutating func finish() -> String? {
    pending.isEmpty ? nil : completed()
  }

  private mutating func take(_ bytes: UnsafeRawBufferPointer) throws(LineTooLong) {
    // A `\r` ending the line does not count: it is dropped with the break.
    guard pending.count + bytes.count <= limit + (bytes.last == 0x0D ? 1 : 0) else { throw LineTooLong() }
    pending.append(contentsOf: bytes)
  }

  private mutating func completed() -> String {
    if pending.last == 0x0D { pending.removeLast() }
    defer { pending.removeAll(keepingCapacity: pending.count <= 1 << 16) }
    return String(decoding: pending, as: UTF8.self)
  }
}
