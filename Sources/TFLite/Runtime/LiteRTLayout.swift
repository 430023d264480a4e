import CLiteRT

/// Conversions between ``Tensor/Shape`` and LiteRT's fixed-size `LiteRtLayout` (at most 8
/// dimensions, imported as a tuple).
enum LiteRTLayout {
  static let maximumRank = 8

  static func shape(of layout: LiteRtLayout) -> Tensor.Shape {
    let rank = min(Int(layout.rank), maximumRank)
    var dimensions = layout.dimensions
    let values = withUnsafeBytes(of: &dimensions) { raw in
      (0..<rank).map { Int(raw.load(fromByteOffset: $0 * 4, as: Int32.self)) }
    }
    return Tensor.Shape(values)
  }

  /// A layout for `shape`, or nil when it has more than 8 dimensions or one outside Int32.
  static func layout(for shape: Tensor.Shape) -> LiteRtLayout? {
    guard shape.rank <= maximumRank else { return nil }
    var layout = LiteRtLayout()
    layout.rank = UInt32(shape.rank)
    layout.has_strides = 0
    var dimensions = layout.dimensions
    let fits = withUnsafeMutableBytes(of: &dimensions) { raw -> Bool in
      for (index, dimension) in shape.dimensions.enumerated() {
        guard let value = Int32(exactly: dimension) else { return false }
        raw.storeBytes(of: value, toByteOffset: index * 4, as: Int32.self)
      }
      return true
    }
    guard fits else { return nil }
    layout.dimensions = dimensions
    return layout
  }
}
