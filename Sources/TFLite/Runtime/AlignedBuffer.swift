/// Zero-filled memory aligned for the runtime (64 bytes: a cache line, and more than XNNPACK
/// and the FlatBuffer reader need), owned by this object and freed when it goes.
final class AlignedBuffer {
  static let alignment = 64

  let pointer: UnsafeMutableRawPointer
  let byteCount: Int

  init(byteCount: Int) {
    self.byteCount = byteCount
    pointer = .allocate(byteCount: max(byteCount, 1), alignment: Self.alignment)
    pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
  }

  /// A copy of `bytes`.
  convenience init(copying bytes: UnsafeRawBufferPointer) {
    self.init(byteCount: bytes.count)
    if let base = bytes.baseAddress, bytes.count > 0 {
      pointer.copyMemory(from: base, byteCount: bytes.count)
    }
  }

  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: byteCount) }

  deinit { pointer.deallocate() }
}
