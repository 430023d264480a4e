extension Tensor {
  /// The dimensions of a tensor.
  public struct Shape: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The size of each dimension, outermost first.
    public let dimensions: [Int]

    /// The number of dimensions.
    public var rank: Int { dimensions.count }

    /// The number of elements (1 for a scalar); nil when a dimension is unknown (-1).
    public var elementCount: Int? {
      var count = 1
      for dimension in dimensions {
        guard dimension >= 0 else { return nil }
        let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
        guard !overflow else { return nil }
        count = product
      }
      return count
    }

    /// A shape with these dimensions.
    public init(_ dimensions: [Int]) { self.dimensions = dimensions }
    /// A shape with these dimensions.
    public init(_ dimensions: Int...) { self.dimensions = dimensions }
    /// A shape from an array literal: `[1, 256, 256, 3]`.
    public init(arrayLiteral dimensions: Int...) { self.dimensions = dimensions }

    /// The dimensions in brackets: `[1, 256, 256, 3]`.
    public var description: String {
      "[" + dimensions.map(String.init).joined(separator: ", ") + "]"
    }
  }
}
