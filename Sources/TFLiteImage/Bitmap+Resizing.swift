extension Bitmap {
  /// The image scaled to `width × height` by bilinear interpolation with pixel-centre alignment.
  ///
  /// Output pixel `(x, y)` samples the source at `((x + 0.5) · sw / dw − 0.5, (y + 0.5) · sh / dh − 0.5)`,
  /// clamped to the edge pixels, and is rounded to the nearest integer: the convention of
  /// `tf.image.resize(method: "bilinear")` (`half_pixel_centers`) and OpenCV's `INTER_LINEAR`.
  /// There is no antialiasing filter, so shrinking by large factors aliases; the aspect ratio is
  /// not preserved. Channels are kept as they are.
  ///
  /// - Throws: ``ImageError/invalidDimensions(width:height:channels:)`` for a size below 1 × 1,
  ///   ``ImageError/tooLarge(width:height:maximumPixelCount:)`` above `maximumPixelCount`.
  public func resized(
    width newWidth: Int, height newHeight: Int, maximumPixelCount: Int = Bitmap.defaultMaximumPixelCount
  ) throws(ImageError) -> Bitmap {
    let byteCount = try Bitmap.byteCount(width: newWidth, height: newHeight, channels: channels)
    guard newWidth * newHeight <= maximumPixelCount else {
      throw .tooLarge(width: newWidth, height: newHeight, maximumPixelCount: maximumPixelCount)
    }
    if newWidth == width && newHeight == height { return self }

    let columns = Bitmap.samplePositions(count: newWidth, source: width)
    let rows = Bitmap.samplePositions(count: newHeight, source: height)
    let channels = self.channels, sourceWidth = self.width
    let output = [UInt8](unsafeUninitializedCapacity: byteCount) { out, initialized in
      pixels.withUnsafeBufferPointer { source in
        var offset = 0
        for row in rows {
          let top = row.first * sourceWidth, bottom = row.second * sourceWidth
          for column in columns {
            let topLeft = (top + column.first) * channels, topRight = (top + column.second) * channels
            let bottomLeft = (bottom + column.first) * channels, bottomRight = (bottom + column.second) * channels
            for channel in 0..<channels {
              let upper = Float(source[topLeft + channel]) * (1 - column.weight)
                + Float(source[topRight + channel]) * column.weight
              let lower = Float(source[bottomLeft + channel]) * (1 - column.weight)
                + Float(source[bottomRight + channel]) * column.weight
              let value = upper * (1 - row.weight) + lower * row.weight
              out[offset] = UInt8(min(max(value.rounded(), 0), 255))
              offset += 1
            }
          }
        }
      }
      initialized = byteCount
    }
    return Bitmap(unchecked: newWidth, height: newHeight, channels: channels, pixels: output)
  }

  /// For each of `count` output positions, the two source indices to blend and the weight of the
  /// second, with pixel-centre alignment and clamping at the edges.
  private static func samplePositions(count: Int, source: Int) -> [(first: Int, second: Int, weight: Float)] {
    let scale = Double(source) / Double(count)
    return (0..<count).map { index in
      let position = min(max((Double(index) + 0.5) * scale - 0.5, 0), Double(source - 1))
      let first = Int(position.rounded(.down))
      let second = min(first + 1, source - 1)
      return (first, second, Float(position - Double(first)))
    }
  }
}
