/// SplitMix64: a small deterministic generator, so "random" test inputs and mutations are the
/// same on every run.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

extension SeededGenerator {
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
