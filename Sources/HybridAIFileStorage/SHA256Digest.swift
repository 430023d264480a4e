import Foundation

/// SHA-256 (FIPS 180-4), incrementally: for content addresses, not for security decisions.
///
/// Written from the specification so that the core module needs no crypto dependency.
/// Whole 64-byte blocks are compressed straight from the caller's buffer; only a partial
/// trailing block is kept, in a fixed-size inline buffer (the value never allocates).
struct SHA256Digest: Sendable {
  /// The hash value H(i): eight 32-bit words (FIPS 180-4 §5.3.3 gives H(0)).
  private var state: State = State()
  /// Up to 63 bytes of input that do not yet fill a block, at the front of 64 inline bytes.
  private var pending: Block = Block()
  /// How many bytes of `pending` are in use (0…63).
  private var pendingCount = 0
  /// The message length so far, in bytes.
  private var length: UInt64 = 0
  /// Set by `finalize()`; updating afterwards is a programming error.
  private var finished = false

  init() {}

  /// Feeds `bytes` into the hash.
  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    precondition(!finished, "SHA256Digest updated after finalize()")
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    let count = bytes.count
    length &+= UInt64(count)
    var offset = 0

    // Top up a partially filled block first.
    if pendingCount > 0 {
      let take = min(64 - pendingCount, count)
      pending.append(base, count: take, at: pendingCount)
      pendingCount += take
      offset = take
      guard pendingCount == 64 else { return }
      compressPending()
    }

    // Whole blocks straight from the input.
    let wholeBlocks = (count - offset) / 64
    if wholeBlocks > 0 {
      state.compress(base + offset, blocks: wholeBlocks)
      offset += wholeBlocks * 64
    }

    // Keep the tail.
    if offset < count {
      pending.append(base + offset, count: count - offset, at: 0)
      pendingCount = count - offset
    }
  }

  /// Feeds the bytes of `data` into the hash.
  mutating func update(_ data: Data) {
    data.withUnsafeBytes { update($0) }
  }

  /// Finishes and returns the 32-byte digest; the value must not be updated afterwards.
  mutating func finalize() -> [UInt8] {
    precondition(!finished, "SHA256Digest finalized twice")
    let bitLength = length &* 8
    // Padding (FIPS 180-4 §5.1.1): a 1 bit, zeros to 56 mod 64 bytes, the 64-bit big-endian length.
    var padding = Block()
    let padCount = pendingCount < 56 ? 56 - pendingCount : 120 - pendingCount
    padding.setByte(0, to: 0x80)
    padding.withUnsafeRawPointer { update(UnsafeRawBufferPointer(start: $0, count: padCount)) }
    var lengthBytes = bitLength.bigEndian
    withUnsafeBytes(of: &lengthBytes) { update($0) }
    precondition(pendingCount == 0)
    finished = true
    return state.bytes()
  }

  /// Finishes and returns the digest as 64 lowercase hex digits.
  mutating func finalizeHex() -> String {
    Self.hexString(finalize())
  }

  /// Finishes and returns the digest as a blob name.
  mutating func finalizeBlobDigest() -> BlobDigest {
    BlobDigest(hex: finalizeHex())!   // 64 lowercase hex digits by construction
  }

  /// The digest of `data` as 64 lowercase hex digits, in one call.
  static func hex(of data: Data) -> String {
    var digest = SHA256Digest()
    digest.update(data)
    return digest.finalizeHex()
  }

  // MARK: - Internals

  private mutating func compressPending() {
    var block = pending
    block.withUnsafeRawPointer { state.compress($0, blocks: 1) }
    pendingCount = 0
  }

  private static func hexString(_ bytes: [UInt8]) -> String {
    let digits: StaticString = "0123456789abcdef"
    return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      digits.withUTF8Buffer { table in
        for (index, byte) in bytes.enumerated() {
          out[2 * index] = table[Int(byte >> 4)]
          out[2 * index + 1] = table[Int(byte & 0x0f)]
        }
      }
      return bytes.count * 2
    }
  }

  /// 64 bytes stored inline (no heap), addressed as raw memory.
  private struct Block: Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Copies `count` bytes from `source` into the block at byte `offset`.
    mutating func append(_ source: UnsafeRawPointer, count: Int, at offset: Int) {
      precondition(offset >= 0 && count >= 0 && offset + count <= 64)
      withUnsafeMutableBytes(of: &words) { raw in
        (raw.baseAddress! + offset).copyMemory(from: source, byteCount: count)
      }
    }

    mutating func setByte(_ offset: Int, to value: UInt8) {
      withUnsafeMutableBytes(of: &words) { $0[offset] = value }
    }

    mutating func withUnsafeRawPointer<R>(_ body: (UnsafeRawPointer) -> R) -> R {
      withUnsafeBytes(of: &words) { body($0.baseAddress!) }
    }
  }

  /// The eight working hash words and the compression function (FIPS 180-4 §6.2.2).
  private struct State: Sendable {
    var h0: UInt32 = 0x6a09_e667
    var h1: UInt32 = 0xbb67_ae85
    var h2: UInt32 = 0x3c6e_f372
    var h3: UInt32 = 0xa54f_f53a
    var h4: UInt32 = 0x510e_527f
    var h5: UInt32 = 0x9b05_688c
    var h6: UInt32 = 0x1f83_d9ab
    var h7: UInt32 = 0x5be0_cd19

    /// The digest: H0…H7 as big-endian bytes.
    func bytes() -> [UInt8] {
      var out = [UInt8]()
      out.reserveCapacity(32)
      for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
        out.append(UInt8(truncatingIfNeeded: word >> 24))
        out.append(UInt8(truncatingIfNeeded: word >> 16))
        out.append(UInt8(truncatingIfNeeded: word >> 8))
        out.append(UInt8(truncatingIfNeeded: word))
      }
      return out
    }

    /// Compresses `blocks` consecutive 64-byte blocks starting at `input` (any alignment).
    mutating func compress(_ input: UnsafeRawPointer, blocks: Int) {
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
        let w = schedule.baseAddress!
        roundConstants.withUnsafeBufferPointer { constants in
          let k = constants.baseAddress!
          var block = input
          for _ in 0..<blocks {
            // Message schedule (§6.2.2 step 1).
            for t in 0..<16 {
              w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
              let x = w[t - 15]
              let y = w[t - 2]
              let sigma0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
              let sigma1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
              w[t] = sigma1 &+ w[t - 7] &+ sigma0 &+ w[t - 16]
            }

            // Working variables and the 64 rounds (steps 2 and 3).
            var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
            for t in 0..<64 {
              let bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
              let choose = (e & f) ^ (~e & g)
              let t1 = h &+ bigSigma1 &+ choose &+ k[t] &+ w[t]
              let bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
              let majority = (a & b) ^ (a & c) ^ (b & c)
              let t2 = bigSigma0 &+ majority
              h = g
              g = f
              f = e
              e = d &+ t1
              d = c
              c = b
              b = a
              a = t1 &+ t2
            }

            // Intermediate hash value (step 4).
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
            h5 &+= f
            h6 &+= g
            h7 &+= h
            block += 64
          }
        }
      }
    }
  }
}

/// Rotate right by `n` (0 < n < 32).
@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
  (x >> n) | (x << (32 &- n))
}

/// K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes (§4.2.2).
private let roundConstants: [UInt32] = [
  0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
  0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
  0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
  0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
  0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
  0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
  0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
  0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]
