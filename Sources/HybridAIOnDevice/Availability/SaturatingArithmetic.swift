/// Sums and products of sizes read from untrusted files (a GGUF's tensor table, its dimensions):
/// the largest value where the exact one would overflow, which every caller then reads as "too
/// large" instead of trapping.
extension UInt64 {
  /// `self + other`, or the largest value where that overflows.
  func addingSaturated(_ other: UInt64) -> UInt64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? .max : sum
  }

  /// `self × other`, or the largest value where that overflows.
  func multipliedSaturated(by other: UInt64) -> UInt64 {
    let (product, overflow) = multipliedReportingOverflow(by: other)
    return overflow ? .max : product
  }

  /// A C `size_t` as Swift imports it (`Int`), read back as the unsigned size it is.
  init(size: Int) {
    self.init(UInt(bitPattern: size))
  }
}
