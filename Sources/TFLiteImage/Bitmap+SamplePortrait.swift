extension Bitmap {
  /// A synthetic RGB picture of a person — a head and shoulders in front of a sky-blue wall — for
  /// demos and tests of person segmentation (`hybrid demo`, HybridAITools' tests) when no photo
  /// may be shipped. Deterministic: the same size gives the same pixels.
  public static func samplePortrait(width: Int, height: Int) throws(ImageError) -> Bitmap {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    let headCentre = (x: Double(width) / 2, y: Double(height) * 0.38), headRadius = Double(height) * 0.17
    for y in 0..<height {
      for x in 0..<width {
        let dx = Double(x) - headCentre.x, dy = Double(y) - headCentre.y
        let inHead = dx * dx + dy * dy * 0.8 < headRadius * headRadius
        let shoulderHalfWidth = Double(width) * 0.12 + max(0, Double(y) - Double(height) * 0.55) * 0.9
        let inBody = Double(y) > Double(height) * 0.55 && abs(dx) < shoulderHalfWidth
        let colour: (UInt8, UInt8, UInt8) =
          inHead ? (224, 172, 140) : inBody ? (40, 60, 110) : (UInt8(150 + y * 60 / height), 190, 235)
        let offset = (y * width + x) * 3
        pixels[offset] = colour.0
        pixels[offset + 1] = colour.1
        pixels[offset + 2] = colour.2
      }
    }
    return try Bitmap(width: width, height: height, channels: 3, pixels: pixels)
  }
}
