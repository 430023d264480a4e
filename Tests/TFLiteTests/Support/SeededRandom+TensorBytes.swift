import HybridAITestSupport

extension SeededRandom {
  /// `count` float32 values uniform in `range`, as little-endian bytes.
  mutating func float32Bytes(count: Int, in range: ClosedRange<Float> = 0...1) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count * 4)
    for _ in 0..<count {
      let bits = Float.random(in: range, using: &self).bitPattern.littleEndian
      withUnsafeBytes(of: bits) { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// `count` int8 values uniform in `range`, as bytes.
  mutating func int8Bytes(count: Int, in range: ClosedRange<Int8>) -> [UInt8] {
    (0..<count).map { _ in UInt8(bitPattern: Int8.random(in: range, using: &self)) }
  }
}
